# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Serve a running tree to Groot2: BehaviorTree.CPP's monitoring protocol, version 2.

No ROS in here. A :class:`Groot2Server` binds a ZMQ reply socket (``127.0.0.1:1667``
unless told otherwise) and answers it from a thread of its own. The thread that ticks
the tree calls :meth:`Groot2Server.on_install` when a tree is (re)installed and
:meth:`Groot2Server.after_tick` after every tick; both publish an immutable
:class:`TreeView` (tree UUID, XML, status buffer) that the server thread only reads, so
no request ever touches the tree or waits for a tick. A replay publishes the views it
makes from a recording instead (:mod:`bt_executive.observe.groot2_replay`).

The wire format (facts from BehaviorTree.CPP 4.8's ``groot2_protocol.h`` and checked
against its ``Groot2Publisher``; docs/groot2.md has the details):

* every request is a multipart message whose first frame is a 6-byte header:
  protocol (``2``), request type (an ASCII letter), a 32-bit little-endian request id;
* every reply starts with a 22-byte header: the request header echoed (protocol set
  to 2) followed by the 16-byte UUID of the tree being served; a new tree gets a new
  UUID, which is how a viewer notices a swap and fetches the tree again;
* an error is ``[b'error', message]`` instead;
* ``T`` (FULLTREE): the tree as BehaviorTree.CPP XML with ``_uid`` attributes;
* ``S`` (STATUS): 3 bytes per node, little-endian uint16 uid and a status byte (0 idle,
  1 running, 2 success, 3 failure; 10 + the previous status for a node that went back
  to idle), grouped by subtree instance in the order BehaviorTree.CPP uses;
* ``B`` (BLACKBOARD): a second frame names blackboards separated by ``;``; the reply is
  a MessagePack map from each known name to that blackboard's contents.

Without a hook handler the server is read-only: hooks and recording are answered with
an error. The executive gives it one when debugging is on
(:mod:`bt_executive.observe.groot2_hooks`): then ``I`` (HOOK_INSERT), ``R``
(HOOK_REMOVE), ``U`` (BREAKPOINT_UNLOCK), ``D`` (HOOKS_DUMP), ``A`` (REMOVE_ALL_HOOKS)
and ``X`` (DISABLE_ALL_HOOKS) go to the handler, and a PUB socket on ``port + 1`` sends
``[header 'N' (BREAKPOINT_REACHED), uid as decimal text]`` when a breakpoint pauses the
tree, as BehaviorTree.CPP's publisher does.
"""

from __future__ import annotations

import dataclasses
import itertools
import logging
import operator
import os
import struct
import threading
from typing import Any, Callable, Iterable, Mapping, Optional, TypeVar, Union
import uuid
from xml.etree import ElementTree

from bt_executive.core.builder import SubtreeBehaviour
from bt_executive.core.table import BuiltTree
from bt_executive.observe.addresses import url_host
from bt_executive.observe.record import TickRecord, Transition
from bt_executive.observe.snapshot import plain_json
import msgpack
import py_trees
from py_trees.common import Status
import zmq

#: The protocol version this server speaks (``BT::Monitor::kProtocolID``).
PROTOCOL = 2
#: Groot2's default port (BehaviorTree.CPP's ``Groot2Publisher`` default).
DEFAULT_PORT = 1667
#: The address bound unless configured otherwise.
DEFAULT_ADDRESS = '127.0.0.1'

#: Request header: protocol byte, request type byte, request id (uint32, little-endian).
REQUEST_HEADER = struct.Struct('<BBI')
#: Bytes of the tree UUID that follows the echoed request header in every reply.
UUID_SIZE = 16
#: Error replies start with this frame; the second frame says why.
ERROR = b'error'

FULLTREE = ord('T')
STATUS = ord('S')
BLACKBOARD = ord('B')
HOOK_INSERT = ord('I')
HOOK_REMOVE = ord('R')
BREAKPOINT_REACHED = ord('N')
BREAKPOINT_UNLOCK = ord('U')
HOOKS_DUMP = ord('D')
REMOVE_ALL_HOOKS = ord('A')
DISABLE_ALL_HOOKS = ord('X')
TOGGLE_RECORDING = ord('r')
GET_TRANSITIONS = ord('t')

#: Request types BehaviorTree.CPP knows, by name (for messages).
REQUEST_NAMES = {
    FULLTREE: 'full_tree', STATUS: 'status', BLACKBOARD: 'blackboard',
    HOOK_INSERT: 'hook_insert', HOOK_REMOVE: 'hook_remove',
    BREAKPOINT_REACHED: 'breakpoint_reached', BREAKPOINT_UNLOCK: 'breakpoint_unlock',
    HOOKS_DUMP: 'hooks_dump', REMOVE_ALL_HOOKS: 'hooks_remove_all',
    DISABLE_ALL_HOOKS: 'disable_hooks', TOGGLE_RECORDING: 'toggle_recording',
    GET_TRANSITIONS: 'get_transitions',
}
#: What changes the tree or its execution; refused unless a hook handler takes hooks.
REFUSED = frozenset({HOOK_INSERT, HOOK_REMOVE, BREAKPOINT_REACHED, BREAKPOINT_UNLOCK,
                     TOGGLE_RECORDING, GET_TRANSITIONS})
#: The requests a hook handler answers (see :class:`Groot2Server`).
HOOK_REQUESTS = frozenset({HOOK_INSERT, HOOK_REMOVE, BREAKPOINT_UNLOCK, HOOKS_DUMP,
                           REMOVE_ALL_HOOKS, DISABLE_ALL_HOOKS})

#: BehaviorTree.CPP status bytes; a node that went back to idle reads IDLE_AFTER + before.
IDLE, RUNNING, SUCCESS, FAILURE = 0, 1, 2, 3
IDLE_AFTER = 10
#: py_trees statuses as BehaviorTree.CPP status bytes (INVALID is BT.CPP's IDLE).
STATUS_CODES = {Status.INVALID: IDLE, Status.RUNNING: RUNNING, Status.SUCCESS: SUCCESS,
                Status.FAILURE: FAILURE}

#: Element names of BehaviorTree.CPP's explicit node form ``<Action ID="X"/>``.
GENERIC_TAGS = ('Action', 'Condition', 'Control', 'Decorator')

#: BehaviorTree.CPP 4.8's built-in node IDs and their model element (as its publisher
#: declares them in ``<TreeNodesModel>``).
BUILTIN_MODELS = {
    **dict.fromkeys(('AlwaysFailure', 'AlwaysSuccess', 'Script', 'SetBlackboard', 'Sleep',
                     'UnsetBlackboard', 'WasEntryUpdated'), 'Action'),
    'ScriptCondition': 'Condition',
    **dict.fromkeys(('AsyncFallback', 'AsyncSequence', 'Fallback', 'IfThenElse', 'Parallel',
                     'ParallelAll', 'ReactiveFallback', 'ReactiveSequence', 'Sequence',
                     'SequenceWithMemory', 'Switch2', 'Switch3', 'Switch4', 'Switch5',
                     'Switch6', 'WhileDoElse'), 'Control'),
    **dict.fromkeys(('Delay', 'ForceFailure', 'ForceSuccess', 'Inverter',
                     'KeepRunningUntilFailure', 'LoopBool', 'LoopDouble', 'LoopInt',
                     'LoopString', 'Precondition', 'Repeat', 'RetryUntilSuccessful', 'RunOnce',
                     'SkipUnlessUpdated', 'Timeout', 'WaitValueUpdate'), 'Decorator'),
    'SubTree': 'SubTree',
}

#: BehaviorTree.CPP's uids are uint16: at most this many nodes can be served.
MAX_NODES = 0xFFFF
#: Longest request frame accepted; ZMQ drops the connection of a peer sending more.
MAX_REQUEST_BYTES = 16 * 1024 * 1024
#: Milliseconds a reply may wait to be queued before it is dropped.
SEND_TIMEOUT_MS = 1000

_status_of = operator.attrgetter('status')
#: A node of a tree: a behaviour, or the id of a recorded node.
Node = TypeVar('Node')


class Groot2Error(Exception):
    """The server cannot be started (e.g. the port is in use) or the tree served."""


def request_header(request_type: int, request_id: int = 0, protocol: int = PROTOCOL) -> bytes:
    """Return the 6-byte header of a request (what a Groot2 client sends)."""
    return REQUEST_HEADER.pack(protocol & 0xFF, request_type & 0xFF, request_id & 0xFFFFFFFF)


def parse_status(buffer: bytes) -> list[tuple[int, int]]:
    """Split a STATUS payload into (uid, status byte) pairs."""
    if len(buffer) % 3:
        raise ValueError(f'status buffer of {len(buffer)} bytes is not a multiple of 3')
    return [(buffer[i] | buffer[i + 1] << 8, buffer[i + 2]) for i in range(0, len(buffer), 3)]


def grouped_order(root: Node, children: Callable[[Node], Iterable[Node]],
                  is_subtree: Callable[[Node], bool]) -> list[Node]:
    """Return the nodes of a tree in the order of BehaviorTree.CPP's status buffer.

    BehaviorTree.CPP lists the nodes of each tree instance together: the main tree's
    nodes (a subtree call belongs to the tree that calls it), then each subtree
    instance's nodes, instances in the order their calls appear (depth first). Within an
    instance nodes are in depth-first pre-order. The nodes are behaviours (the running
    tree) or node ids (a recorded tree); ``is_subtree`` tells a subtree call.
    """
    groups: list[list[Node]] = [[]]
    stack = [(root, 0)]
    while stack:
        node, group = stack.pop()
        groups[group].append(node)
        if is_subtree(node):
            groups.append([])
            group = len(groups) - 1
        stack.extend((child, group) for child in reversed(list(children(node))))
    return [node for members in groups for node in members]


def status_order(root: py_trees.behaviour.Behaviour) -> list[py_trees.behaviour.Behaviour]:
    """Return the behaviours in the order of BehaviorTree.CPP's status buffer."""
    return grouped_order(root, operator.attrgetter('children'),
                         lambda node: isinstance(node, SubtreeBehaviour))


def buffer_uids(paths: Iterable[str], uids: Mapping[str, int]) -> list[int]:
    """Return the uid of each node path, in order.

    Raises:
        Groot2Error: a node has no uid, a uid does not fit 16 bits, or there are more
            nodes than Groot2 can show.
    """
    result = []
    for path in paths:
        uid = uids.get(path)
        if uid is None or not 0 <= uid <= MAX_NODES:
            raise Groot2Error(f'node {path!r} has no Groot2 uid (got {uid!r})')
        result.append(uid)
    if len(result) > MAX_NODES:
        raise Groot2Error(f'the tree has {len(result)} nodes; Groot2 can show at '
                          f'most {MAX_NODES}')
    return result


class StatusBuffer:
    """The STATUS payload of nodes in buffer order, and the statuses last seen.

    A node's byte is its status, or 10 + its previous status when it was seen going
    back to INVALID (BehaviorTree.CPP's "idle after success/failure/running"). Every
    node starts INVALID (idle). The live server feeds it after each tick, a replay with
    each recorded state in turn: both serve the same bytes for the same statuses.

    Args:
        uids: the uid of each node, in buffer order
    """

    def __init__(self, uids: Iterable[int]) -> None:
        buffer = bytearray()
        for uid in uids:
            buffer += struct.pack('<HB', uid, IDLE)
        self._buffer = buffer
        self._last = [Status.INVALID] * (len(buffer) // 3)
        self._bytes = bytes(buffer)

    @property
    def buffer(self) -> bytes:
        """Return the latest status buffer: bytes, never changed afterwards."""
        return self._bytes

    def copy(self) -> 'StatusBuffer':
        """Return an independent duplicate (a replay keeps some, to step back cheaply)."""
        other = StatusBuffer(())
        other._buffer = bytearray(self._buffer)
        other._last = list(self._last)
        other._bytes = self._bytes
        return other

    def change(self, changes: Iterable[tuple[int, Status]]) -> bool:
        """Set the statuses of some nodes (index, status); return True if a byte changed."""
        buffer = self._buffer
        last = self._last
        moved = False
        for index, status in changes:
            if status is last[index]:
                continue
            if status is Status.INVALID:
                code = IDLE_AFTER + STATUS_CODES[last[index]]
            else:
                code = STATUS_CODES[status]
            buffer[3 * index + 2] = code
            last[index] = status
            moved = True
        if moved:
            self._bytes = bytes(buffer)
        return moved

    def set_all(self, current: list[Status]) -> bool:
        """Set every node's status (in buffer order); return True if a byte changed."""
        last = self._last
        if current == last:
            return False
        buffer = self._buffer
        for index in itertools.compress(itertools.count(), map(operator.ne, current, last)):
            status = current[index]
            if status is Status.INVALID:
                code = IDLE_AFTER + STATUS_CODES[last[index]]
            else:
                code = STATUS_CODES[status]
            buffer[3 * index + 2] = code
        self._last = current
        self._bytes = bytes(buffer)
        return True


class StatusEncoder:
    """Build BehaviorTree.CPP status buffers from a py_trees tree (one thread only).

    Statuses are compared between calls of :meth:`update` (or :meth:`apply`), i.e.
    after each tick (:class:`StatusBuffer`).

    Args:
        tree: the built tree
        uids: node path -> BehaviorTree.CPP uid

    Raises:
        Groot2Error: a behaviour has no uid, or a uid does not fit 16 bits.
    """

    def __init__(self, tree: BuiltTree, uids: Mapping[str, int]):
        self.nodes = status_order(tree.root)
        self._status = StatusBuffer(buffer_uids(map(tree.nodes.path, self.nodes), uids))
        self._index = {node: index for index, node in enumerate(self.nodes)}
        self.update()

    @property
    def buffer(self) -> bytes:
        """Return the latest status buffer: bytes, never changed afterwards."""
        return self._status.buffer

    def apply(self, changes: Iterable[Transition]) -> bool:
        """Take the status changes of a tick record; return True if the buffer changed."""
        index = self._index.get
        return self._status.change((at, change.new) for change in changes
                                   if (at := index(change.behaviour)) is not None)

    def update(self) -> bool:
        """Read every node's status; return True if the buffer changed."""
        return self._status.set_all(list(map(_status_of, self.nodes)))


@dataclasses.dataclass(frozen=True)
class TreeView:
    """What the server thread answers from; replaced, never changed.

    Attributes:
        uuid: the 16-byte tree UUID sent in every reply header (new for every tree)
        name: the tree's name
        xml: the FULLTREE payload
        status: the STATUS payload
        blackboards: the names BLACKBOARD requests may ask for
        blackboard: a shallow copy of the blackboard storage, taken with the statuses
    """

    uuid: bytes
    name: str
    xml: bytes
    status: bytes
    blackboards: frozenset[str]
    blackboard: Mapping[str, Any] = dataclasses.field(default_factory=dict, compare=False)

    def now(self, status: bytes, blackboard: Mapping[str, Any]) -> 'TreeView':
        """Return this view with a tick's statuses and blackboard copy.

        Called after every tick: the generated ``__init__`` with positional arguments
        costs a fraction of ``dataclasses.replace`` (which reads the fields each time).
        """
        return TreeView(self.uuid, self.name, self.xml, status, self.blackboards, blackboard)


def new_tree_uuid() -> bytes:
    """Return a fresh random tree UUID (an RFC 4122 version 4 UUID, like BT.CPP's)."""
    return uuid.uuid4().bytes


def blackboard_names(xml: Union[str, ElementTree.Element], tree_name: str) -> frozenset[str]:
    """Return the blackboard names of a served tree: the main tree and its subtree calls.

    As in BehaviorTree.CPP, the main tree's blackboard is named after the tree and each
    subtree instance's after its ``_fullpath``. ``xml`` is the tree's XML text or its
    ``<root>`` element (:func:`tree_element`).
    """
    root = ElementTree.fromstring(xml) if isinstance(xml, str) else xml
    names = {tree_name}
    for element in root.iter('BehaviorTree'):
        path = element.get('_fullpath')
        if path:
            names.add(path)
    return frozenset(names)


def tree_element(uids: Mapping[str, int], *, document: Any, tree_name: str,
                 registry: Any = None) -> ElementTree.Element:
    """Return the ``<root>`` element of a tree's export with our uids (not yet rewritten).

    It is ``bt_executive.formats.btcpp``'s export with the uids: one ``<BehaviorTree>`` per
    subtree instance, ``_uid`` on every node; :func:`publisher_xml` writes it.
    """
    from bt_executive.formats.btcpp import export_element
    return export_element(document, tree_name=tree_name, uids=dict(uids), registry=registry)


def tree_xml(uids: Mapping[str, int], *, document: Any, tree_name: str,
             registry: Any = None) -> str:
    """Return the FULLTREE XML of a tree.

    It is ``bt_executive.formats.btcpp``'s export with our uids (:func:`tree_element`),
    written the way BehaviorTree.CPP's publisher writes it (:func:`publisher_xml`).
    """
    return publisher_xml(tree_element(uids, document=document, tree_name=tree_name,
                                      registry=registry))


def publisher_xml(xml: Union[str, ElementTree.Element]) -> str:
    """Rewrite exported XML the way BehaviorTree.CPP's Groot2 publisher writes a tree.

    ``xml`` is the exported text or its ``<root>`` element (:func:`tree_element`), which
    is rewritten in place.

    * Every node is written as ``<NodeID .../>``: the explicit form ``<Action ID="X"/>``
      (and Condition/Control/Decorator) is compacted, except where the ID is itself one
      of those four words (our ``Condition`` and ``Action`` leaves), which would then
      read as the explicit form without an ID.
    * ``<TreeNodesModel>`` also declares the BehaviorTree.CPP built-ins the tree uses
      (their publisher declares all of its built-ins; viewers learn from the models
      which nodes are actions, conditions, controls or decorators), sorted by ID.
    """
    root = ElementTree.fromstring(xml) if isinstance(xml, str) else xml
    used = set()
    for tree in root.iter('BehaviorTree'):
        for element in tree.iter():
            if element is tree:
                continue
            node_id = element.get('ID')
            if element.tag in GENERIC_TAGS and node_id and node_id not in GENERIC_TAGS:
                element.tag = element.attrib.pop('ID')
            used.add(element.tag)
    models = root.find('TreeNodesModel')
    if models is None:
        models = ElementTree.SubElement(root, 'TreeNodesModel')
    declared = {model.get('ID') for model in models}
    for node_id in used - declared:
        kind = BUILTIN_MODELS.get(node_id)
        if kind is not None:
            ElementTree.SubElement(models, kind, ID=node_id)
    models[:] = sorted(models, key=lambda model: model.get('ID') or '')
    return ElementTree.tostring(root, encoding='unicode') + '\n'


def served_xml(element: ElementTree.Element, tree_name: str) -> tuple[bytes, frozenset[str]]:
    """Return the FULLTREE payload of a tree's ``<root>`` element and its blackboard names.

    ``element`` is :func:`tree_element`'s (or a replay's tree rebuilt from a recording);
    it is rewritten in place (:func:`publisher_xml`).
    """
    names = blackboard_names(element, tree_name)
    return publisher_xml(element).encode('utf-8'), names


def tree_uids(tree: BuiltTree) -> dict[str, int]:
    """Return the BehaviorTree.CPP uid of every behaviour (the BT.CPP export's map)."""
    from bt_executive.formats.btcpp import uid_map
    return uid_map(tree)


def _storage() -> dict[str, Any]:
    return py_trees.blackboard.Blackboard.storage


class Groot2Server:
    """Answer Groot2's monitoring requests about the installed tree from a thread.

    Args:
        port: TCP port (0: any free port; see :attr:`port`)
        address: the address to bind; loopback unless set otherwise (``''`` also means
            loopback); every interface only when asked for explicitly with ``'0.0.0.0'``
            or ``'*'``, which is logged as a warning
        logger: where to report (``info``/``warning``/``error`` methods; a ROS logger
            works); default ``logging.getLogger('bt_executive.observe.groot2')``
        render_value: turns a blackboard value into plain data (ROS messages into dicts)
        storage: returns the blackboard storage to serve (py_trees' by default)
        view: what to serve from the first request on (see :meth:`publish`)
        hooks: answers the hook requests (:data:`HOOK_REQUESTS`) from the server thread:
            called with the request's name (``hook_insert``...) and its second part (None
            if there is none); returns the reply's payload (None: none) or raises
            ``ValueError`` with the message of an error reply. Given, the server also
            binds ``port + 1`` for BREAKPOINT_REACHED notifications (a port in use there
            is logged; hooks then work without notifications). None: read-only.

    Raises:
        Groot2Error: the address cannot be bound (port in use, bad address).
    """

    def __init__(self, port: int = DEFAULT_PORT, address: str = DEFAULT_ADDRESS, *,
                 logger: Any = None, render_value: Callable[[Any], Any] = plain_json,
                 storage: Callable[[], Mapping[str, Any]] = _storage,
                 view: Optional[TreeView] = None,
                 hooks: Optional[Callable[[str, Optional[bytes]], Optional[bytes]]] = None):
        self.logger = logger or logging.getLogger('bt_executive.observe.groot2')
        self.render_value = render_value
        self._storage = storage
        self._view: Optional[TreeView] = view
        self._encoder: Optional[StatusEncoder] = None
        self.requests = 0
        self.errors = 0
        self._context = zmq.Context()
        address = address or DEFAULT_ADDRESS  # an empty setting never opens the port wide
        host = '*' if address in ('0.0.0.0', '*') else address
        if host == '*':
            self.logger.warning('Groot2 server bound to every network interface '
                                f"(address '{address}'): anyone on the network can read "
                                'the tree and the blackboard')
        host = url_host(host)
        self._socket = self._context.socket(zmq.REP)
        self._socket.setsockopt(zmq.LINGER, 0)
        self._socket.setsockopt(zmq.SNDTIMEO, SEND_TIMEOUT_MS)
        self._socket.setsockopt(zmq.MAXMSGSIZE, MAX_REQUEST_BYTES)
        if ':' in host:
            self._socket.setsockopt(zmq.IPV6, 1)
        try:
            self._socket.bind(f'tcp://{host}:{port or "*"}')
        except zmq.ZMQError as error:
            self._socket.close(linger=0)
            self._context.term()
            raise Groot2Error(f'cannot serve Groot2 on {address or "*"}:{port}: '
                              f'{os.strerror(error.errno or 0)}') from error
        self.endpoint = self._socket.getsockopt_string(zmq.LAST_ENDPOINT)
        self.port = int(self.endpoint.rsplit(':', 1)[1])
        self.address = address
        self.hooks = hooks
        self._uids: Mapping[str, int] = {}
        #: the PUB socket of BREAKPOINT_REACHED (None: no hooks, or port + 1 was taken)
        self.notifier: Optional[zmq.Socket[bytes]] = None
        if hooks is not None:
            self.notifier = self._bind_notifier(host)
        wake = f'inproc://groot2-wake-{id(self)}'
        self._wake_rx = self._context.socket(zmq.PAIR)
        self._wake_rx.bind(wake)
        self._wake_tx = self._context.socket(zmq.PAIR)
        self._wake_tx.setsockopt(zmq.LINGER, 0)
        self._wake_tx.connect(wake)
        self._closed = False
        self._thread = threading.Thread(target=self._serve, name=f'groot2-{self.port}',
                                        daemon=True)
        self._thread.start()

    def _bind_notifier(self, host: str) -> Optional[zmq.Socket[bytes]]:
        """Bind the PUB socket of breakpoint notifications on ``port + 1`` (None: taken)."""
        notifier = self._context.socket(zmq.PUB)
        notifier.setsockopt(zmq.LINGER, 0)
        notifier.setsockopt(zmq.SNDTIMEO, 0)
        if ':' in host:
            notifier.setsockopt(zmq.IPV6, 1)
        try:
            notifier.bind(f'tcp://{host}:{self.port + 1}')
        except zmq.ZMQError as error:
            notifier.close(linger=0)
            self.logger.warning(f'Groot2: no breakpoint notifications: cannot bind '
                                f'{self.address}:{self.port + 1}: '
                                f'{os.strerror(error.errno or 0)}')
            return None
        return notifier

    # ---- the ticking thread's side ---------------------------------------------------

    def on_install(self, tree: Optional[BuiltTree], *, tree_name: str = '',
                   document: Any = None, registry: Any = None) -> None:
        """Serve a new tree (None: no tree) under a new tree UUID; never raises.

        Args:
            tree: the new tree, built by :mod:`bt_executive.core.builder`
            tree_name: the tree's name (also the name of its blackboard)
            document: the loaded document the tree was built from (for the XML)
            registry: the node catalogue (for the XML's node models)
        """
        self._encoder = None
        self._view = None
        self._uids = {}
        if tree is None:
            return
        try:
            uids = tree_uids(tree)
            encoder = StatusEncoder(tree, uids)
            xml, names = served_xml(tree_element(uids, document=document,
                                                 tree_name=tree_name, registry=registry),
                                    tree_name)
        except Exception as error:  # noqa: B902 - serving must never break the executive
            self.logger.error(f'Groot2: cannot serve tree {tree_name!r}: {error}')
            return
        self._encoder = encoder
        self._uids = uids
        self._view = TreeView(uuid=new_tree_uuid(), name=tree_name, xml=xml,
                              status=encoder.buffer, blackboards=names,
                              blackboard=dict(self._storage()))

    def publish(self, view: Optional[TreeView]) -> None:
        """Serve a view made elsewhere (a replay; None: no tree); never raises.

        The tick hooks (:meth:`on_tick`, :meth:`after_tick`) then do nothing until the
        next :meth:`on_install`. A new tree needs a new :attr:`TreeView.uuid`.
        """
        self._encoder = None
        self._view = view

    def on_tick(self, record: TickRecord) -> None:
        """Serve the statuses a tick record changed and the blackboard as it is now."""
        encoder = self._encoder
        view = self._view
        if encoder is None or view is None:
            return
        encoder.apply(record.changes)
        self._view = view.now(encoder.buffer, dict(self._storage()))
        if record.debug and self.notifier is not None:
            self._notify(record.debug)

    def _notify(self, notes: Iterable[Any]) -> None:
        """Send BREAKPOINT_REACHED for each breakpoint hit (the ticking thread's socket)."""
        assert self.notifier is not None
        for note in notes:
            uid = self._uids.get(getattr(note, 'node', ''))
            if getattr(note, 'kind', '') != 'hit' or uid is None:
                continue
            try:
                self.notifier.send_multipart([
                    request_header(BREAKPOINT_REACHED, int.from_bytes(os.urandom(4), 'little')),
                    str(uid).encode('ascii')], zmq.NOBLOCK)
            except zmq.ZMQError as error:  # no subscriber's queue has room: dropped
                self.logger.warning(f'Groot2: breakpoint notification not sent: {error}')

    def after_tick(self) -> None:
        """Serve the tree's statuses (read from every node) and blackboard as they are now.

        For a tree ticked without a :class:`~bt_executive.observe.runner.TreeRunner`;
        the tree host uses :meth:`on_tick`.
        """
        encoder = self._encoder
        view = self._view
        if encoder is None or view is None:
            return
        encoder.update()
        self._view = view.now(encoder.buffer, dict(self._storage()))

    @property
    def view(self) -> Optional[TreeView]:
        """Return what is being served (None: no tree)."""
        return self._view

    # ---- the server thread --------------------------------------------------------------

    def _serve(self) -> None:
        socket = self._socket
        poller = zmq.Poller()
        poller.register(socket, zmq.POLLIN)
        poller.register(self._wake_rx, zmq.POLLIN)
        try:
            while True:
                ready = dict(poller.poll())
                if self._wake_rx in ready:
                    break
                if socket not in ready:
                    continue
                try:
                    frames = socket.recv_multipart(zmq.NOBLOCK)
                except zmq.Again:
                    continue
                reply = self.answer(frames)
                try:
                    socket.send_multipart(reply)
                except zmq.ZMQError as error:  # e.g. timed out: the reply is lost
                    self.logger.warning(f'Groot2: could not send a reply: {error}')
                    socket = self._replace_socket(poller, socket)
        except Exception as error:  # noqa: B902 - report instead of dying silently
            self.logger.error(f'Groot2: the server thread stopped: {error}')
        finally:
            poller.unregister(self._wake_rx)
            self._socket.close(linger=0)
            self._wake_rx.close(linger=0)

    def _replace_socket(self, poller: zmq.Poller, socket: zmq.Socket[bytes]
                        ) -> zmq.Socket[bytes]:
        """Rebind a fresh socket after a failed send (a REP socket is then stuck)."""
        poller.unregister(socket)
        socket.close(linger=0)
        fresh = self._context.socket(zmq.REP)
        fresh.setsockopt(zmq.LINGER, 0)
        fresh.setsockopt(zmq.SNDTIMEO, SEND_TIMEOUT_MS)
        fresh.setsockopt(zmq.MAXMSGSIZE, MAX_REQUEST_BYTES)
        fresh.bind(self.endpoint)
        poller.register(fresh, zmq.POLLIN)
        self._socket = fresh
        return fresh

    def answer(self, frames: list[bytes]) -> list[bytes]:
        """Return the reply to one request (error replies included); never raises."""
        self.requests += 1
        try:
            return self._answer(frames)
        except Exception as error:  # noqa: B902 - a REP socket must always reply
            return self._error(f'internal error: {type(error).__name__}: {error}')

    def _error(self, message: str) -> list[bytes]:
        self.errors += 1
        return [ERROR, message.encode('utf-8')]

    def _answer(self, frames: list[bytes]) -> list[bytes]:
        head = frames[0] if frames else b''
        if len(head) != REQUEST_HEADER.size:
            return self._error(f'wrong request header: expected {REQUEST_HEADER.size} '
                               f'bytes, got {len(head)}')
        protocol, kind, request_id = REQUEST_HEADER.unpack(head)
        if protocol != PROTOCOL:
            return self._error(f'unsupported protocol {protocol}: this server speaks '
                               f'protocol {PROTOCOL}')
        name = REQUEST_NAMES.get(kind)
        if name is None:
            return self._error(f'request type {kind} ({chr(kind)!r}) not recognized')
        if self.hooks is not None and kind in HOOK_REQUESTS:
            return self._hook(kind, request_id, frames)
        if kind in REFUSED:
            return self._error(f'{name} is not supported: bt_executive serves Groot2 '
                               'read-only (no hooks, breakpoints or recording)')
        view = self._view
        if view is None:
            return self._error('no tree is loaded')
        header = request_header(kind, request_id) + view.uuid
        if kind == FULLTREE:
            return [header, view.xml]
        if kind == STATUS:
            return [header, view.status]
        if kind == BLACKBOARD:
            if len(frames) != 2:
                return self._error('blackboard requests must have 2 parts (header, names)')
            return [header, self._blackboard_dump(view, frames[1])]
        if kind == HOOKS_DUMP:
            return [header, b'[]']  # there never are any hooks
        return [header]  # REMOVE_ALL_HOOKS, DISABLE_ALL_HOOKS: nothing to do

    def _hook(self, kind: int, request_id: int, frames: list[bytes]) -> list[bytes]:
        """Answer a hook request with the hook handler."""
        assert self.hooks is not None
        if len(frames) > 2:
            return self._error('must be 2 parts message')
        try:
            payload = self.hooks(REQUEST_NAMES[kind], frames[1] if len(frames) == 2 else None)
        except ValueError as error:
            return self._error(str(error))
        view = self._view
        tree_id = view.uuid if view is not None else bytes(UUID_SIZE)
        head = request_header(kind, request_id) + tree_id
        return [head] if payload is None else [head, payload]

    def _blackboard_dump(self, view: TreeView, names: bytes) -> bytes:
        """Return the MessagePack map of the named blackboards (nil if none is known).

        The tree's subtrees share its blackboard (their parameters are substituted when
        the tree is built), so every known name gets the same contents.
        """
        wanted = [name for name in names.decode('utf-8', 'replace').split(';')
                  if name in view.blackboards]
        if not wanted:
            return bytes(msgpack.packb(None))
        contents = {key[1:] if key.startswith('/') else key: self.render_value(value)
                    for key, value in view.blackboard.items()}
        return bytes(msgpack.packb({name: contents for name in dict.fromkeys(wanted)},
                                   default=repr))

    # ---- stopping -----------------------------------------------------------------------

    @property
    def alive(self) -> bool:
        """Return True while the server thread runs."""
        return self._thread.is_alive()

    def close(self, timeout: float = 5.0) -> bool:
        """Stop serving, release the port and join the thread (at most ``timeout`` s).

        Returns:
            True if the thread ended in time.
        """
        if self._closed:
            return not self._thread.is_alive()
        self._closed = True
        try:
            self._wake_tx.send(b'', zmq.NOBLOCK)
        except zmq.ZMQError:
            pass
        self._thread.join(timeout)
        self._wake_tx.close(linger=0)
        if self.notifier is not None:
            self.notifier.close(linger=0)
        if self._thread.is_alive():
            self.logger.error(f'Groot2: the server thread did not stop within {timeout} s')
            return False
        self._context.term()
        return True


__all__ = ['BLACKBOARD', 'BREAKPOINT_REACHED', 'DEFAULT_ADDRESS', 'DEFAULT_PORT', 'ERROR',
           'FULLTREE', 'Groot2Error', 'Groot2Server', 'HOOK_REQUESTS', 'IDLE_AFTER', 'PROTOCOL',
           'REQUEST_HEADER', 'STATUS', 'StatusBuffer', 'StatusEncoder', 'TreeView',
           'blackboard_names', 'buffer_uids', 'grouped_order', 'publisher_xml', 'new_tree_uuid',
           'parse_status', 'request_header', 'served_xml', 'status_order', 'tree_element',
           'tree_uids', 'tree_xml']
