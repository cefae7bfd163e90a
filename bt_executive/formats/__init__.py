"""File formats and renderings: BT.CPP XML, Graphviz dot, the text outline, reference docs."""
