"""``nginx_round_robin``: Debian's nginx on a free loopback port, proxying round robin to devkb
replicas — the load balancer of the multi-replica test and the replicas benchmark (a well-kept
proxy rather than one written here). Every response carries ``X-Upstream``, the replica that
served it."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from devkb.errors import DevkbError
from devkb_devtools.bench.server_process import free_port


class ProxyUnavailableError(DevkbError):
    """nginx is not installed (``scripts/test.sh`` installs Debian's nginx-light)."""


def nginx_path() -> str | None:
    return shutil.which("nginx") or next((p for p in ("/usr/sbin/nginx",) if Path(p).exists()), None)


@contextmanager
def nginx_round_robin(upstreams: list[str], root: Path) -> Iterator[str]:
    """Proxy ``upstreams`` (``host:port``) round robin; yields the proxy's base URL."""
    nginx = nginx_path()
    if nginx is None:
        raise ProxyUnavailableError("nginx is not installed: apt-get install nginx-light")
    root.mkdir(parents=True, exist_ok=True)
    port = free_port()
    servers = " ".join(f"server {u} max_fails=1 fail_timeout=2s;" for u in upstreams)
    user = "user root;" if os.geteuid() == 0 else ""  # workers must reach the temp folders below
    conf = root / "nginx.conf"
    conf.write_text(
        f"""{user}
worker_processes 1;
daemon off;
pid {root}/nginx.pid;
error_log {root}/error.log warn;
events {{ worker_connections 1024; }}
http {{
  access_log off;
  client_body_temp_path {root}/body;
  proxy_temp_path {root}/proxy;
  fastcgi_temp_path {root}/fastcgi;
  uwsgi_temp_path {root}/uwsgi;
  scgi_temp_path {root}/scgi;
  upstream devkb {{ {servers} keepalive 64; }}
  server {{
    listen 127.0.0.1:{port};
    location / {{
      proxy_pass http://devkb;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_next_upstream error timeout http_502;
      proxy_connect_timeout 2s;
      proxy_read_timeout 120s;
      add_header X-Upstream $upstream_addr always;
    }}
  }}
}}
"""
    )
    proc = subprocess.Popen([nginx, "-c", str(conf), "-p", str(root)], stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(200):
            if proc.poll() is not None:
                err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
                raise ProxyUnavailableError(f"nginx exited: {err}")
            try:
                httpx.get(url + "/health", timeout=5)
                break
            except httpx.HTTPError:
                time.sleep(0.05)
        yield url
    finally:
        proc.send_signal(signal.SIGQUIT)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
