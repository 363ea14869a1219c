"""Running test code in threads that switch as often as the interpreter allows."""

import sys
import threading
from typing import Any, Callable, Iterable


def run_in_threads(target: Callable, arg_lists: Iterable[tuple[Any, ...]]) -> None:
    """Start one thread per argument tuple running ``target``, with the thread switch
    interval at its minimum (to provoke races), and wait for them all."""
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=target, args=args) for args in arg_lists]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(old)
