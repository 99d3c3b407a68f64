"""The local HTTP server each scripted model (``anthropic_fake``, ``gemini_fake``, ``responses_fake``)
answers from: a thread of this process, on a free port of 127.0.0.1, for as long as a block runs."""

from __future__ import annotations

import threading
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Iterator


class ScriptServer(ThreadingHTTPServer):
    """The server; its handler reads the model's script as ``self.server.script``."""

    daemon_threads = True
    script: Any


@contextmanager
def serving(handler: type[BaseHTTPRequestHandler], script: Any, path: str = "") -> Iterator[str]:
    """Serve `script` through `handler` for as long as the block runs; the base URL
    (``http://127.0.0.1:PORT`` and `path`)."""
    server = ScriptServer(("127.0.0.1", 0), handler)
    server.script = script
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}{path}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
