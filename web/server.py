"""The dashboard's HTTP server: the standard library's, with a bounded pool
of worker threads (WORKERS at once; further connections wait in the
listen queue, BACKLOG long) and a time limit on each connection, so that
a burst of requests is answered in turn instead of each taking a thread.
Each answer says its server time in a Server-Timing header.
"""
import http.server
import socketserver
import time
from concurrent.futures import ThreadPoolExecutor

WORKERS = 8
BACKLOG = 512
# seconds a connection may take to send its request
TIMEOUT = 20


class Handler(http.server.BaseHTTPRequestHandler):
    server_version = "jlbench"
    sys_version = ""
    timeout = TIMEOUT
    protocol_version = "HTTP/1.0"

    def answer(self, head_only):
        start = time.perf_counter()
        r = self.server.app.respond(self.command, self.path)
        took = time.perf_counter() - start
        self.send_response(r.status)
        # the server's time on the request (bench/timing/bench-dashboard)
        self.send_header("Server-Timing", "app;dur=%.1f" % (1000 * took))
        for k, v in r.headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(r.body)))
        self.end_headers()
        if not head_only:
            self.wfile.write(r.body)

    def do_GET(self):
        self.answer(False)

    def do_HEAD(self):
        self.answer(True)

    def refuse(self):
        """Any other method: App.respond's 405."""
        self.answer(False)

    do_POST = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = refuse
    do_TRACE = do_CONNECT = refuse

    def log_message(self, fmt, *args):
        pass


class Server(socketserver.TCPServer):
    allow_reuse_address = True
    request_queue_size = BACKLOG
    daemon_threads = True

    def __init__(self, address, app):
        self.app = app
        self.pool = ThreadPoolExecutor(max_workers=WORKERS,
                                       thread_name_prefix="dashboard")
        super().__init__(address, Handler)

    def process_request(self, request, client_address):
        self.pool.submit(self.work, request, client_address)

    def work(self, request, client_address):
        try:
            self.finish_request(request, client_address)
        except Exception:
            self.handle_error(request, client_address)
        finally:
            self.shutdown_request(request)

    def server_close(self):
        super().server_close()
        self.pool.shutdown(wait=False, cancel_futures=True)
