# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The zygote of cli_process.py: imports the command line once, forks a child per run.

``python cli_zygote.py FD``: FD is a SOCK_SEQPACKET socket. The zygote sends
``{"settled": bool, "modules": {top-level name: file}}`` once its imports are done,
then serves requests until the socket closes: each request is a JSON message
``{"module", "args", "cwd", "env"}`` carrying three descriptors (the child's stdin,
stdout and stderr); the answer is ``{"pid": pid}`` at once and ``{"status": wait
status}`` when the child has ended.
"""

import atexit
import json
import os
import random
import runpy
import signal
import socket
import sys
import time
import traceback

import bt_executive.app.cli  # noqa: F401 - what the children share
import bt_executive.ros.checks  # noqa: F401


def settled() -> bool:
    """Return whether every thread but this one sleeps in a futex wait.

    rclpy's import starts LTTng-UST's two listener threads; with no session daemon they
    wait on a futex for one, holding no lock. A fork then copies no lock held mid-operation.
    """
    for task in os.listdir('/proc/self/task'):
        if int(task) != os.getpid():
            with open(f'/proc/self/task/{task}/wchan') as wchan:
                if 'futex' not in wchan.read():
                    return False
    return True


def child(channel: socket.socket, request: dict, fds: list[int], site: list[str]) -> None:
    """Become the run of ``python -m MODULE ARGS`` that ``request`` asks for; never return."""
    channel.close()
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    os.chdir(request['cwd'])
    os.environ.clear()
    os.environ.update(request['env'])
    random.seed()
    # as a fresh ``python -m`` has it: the current directory, PYTHONPATH, then the site's
    requested = [os.path.abspath(entry)
                 for entry in request['env'].get('PYTHONPATH', '').split(os.pathsep) if entry]
    sys.path[:] = list(dict.fromkeys([os.getcwd(), *requested, *site]))
    sys.argv = ['-m', *request['args']]
    sys.modules.pop(request['module'], None)  # run afresh as __main__, as -m does
    code = 0
    try:
        runpy.run_module(request['module'], run_name='__main__', alter_sys=True)
    except SystemExit as stop:
        if stop.code is None:
            code = 0
        elif isinstance(stop.code, int):
            code = stop.code & 0xff
        else:
            print(stop.code, file=sys.stderr)
            code = 1
    except BaseException:  # noqa: B902 - reported as the interpreter reports it
        traceback.print_exc()
        code = 1
    try:
        atexit._run_exitfuncs()
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        os._exit(code)


def main() -> None:
    """Serve requests on the socket of ``sys.argv[1]`` until it closes."""
    own = {os.path.abspath(entry)
           for entry in os.environ.get('PYTHONPATH', '').split(os.pathsep) if entry}
    site = [entry for entry in sys.path[1:] if os.path.abspath(entry) not in own]
    channel = socket.socket(fileno=int(sys.argv[1]))
    for _ in range(200):
        if settled():
            break
        time.sleep(0.01)  # polled, bounded: the listeners settle within milliseconds
    imported = {name: getattr(module, '__file__', None)
                for name, module in list(sys.modules.items()) if '.' not in name}
    channel.send(json.dumps({'settled': settled(), 'modules': imported}).encode())
    while True:
        try:
            message, fds, _, _ = socket.recv_fds(channel, 1 << 20, 3)
        except OSError:
            break
        if not message:
            break
        request = json.loads(message)
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            child(channel, request, fds, site)
        for fd in fds:
            os.close(fd)
        channel.send(json.dumps({'pid': pid}).encode())
        _, status = os.waitpid(pid, 0)
        channel.send(json.dumps({'status': status}).encode())


if __name__ == '__main__':
    main()
