# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""How a host is written in an address: the one rule every server here shares."""


def url_host(host: str) -> str:
    """Return ``host`` as written before ``:port`` (an IPv6 address goes in brackets)."""
    return f'[{host}]' if ':' in host and not host.startswith('[') else host


__all__ = ['url_host']
