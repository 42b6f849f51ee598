"""HTTPS through the same client: a certificate that is not trusted is refused in one line, a trusted
one works, and the read timeout still holds once TLS is up. The certificate is made here with the
openssl command (skipped without it: nothing else in the suite needs it)."""

from __future__ import annotations

import shutil
import ssl
import subprocess
import time

import pytest

from search import SourceError
from search.sources.http import Client


@pytest.fixture(scope="module")
def certificate(tmp_path_factory):
    if shutil.which("openssl") is None:
        pytest.skip("needs the openssl command to make a test certificate")
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    command = "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj /CN=127.0.0.1"
    subprocess.run(
        [*command.split(), "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
        check=True,
        capture_output=True,
        timeout=60,
    )
    return cert, key


@pytest.fixture
def tls_server(server, certificate):
    cert, key = certificate
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    server.httpd.socket = context.wrap_socket(server.httpd.socket, server_side=True)
    return server, cert


def test_an_untrusted_certificate_is_refused(tls_server):
    server, _ = tls_server
    server.route("/x", lambda h: h.answer(200, b"secret"))
    url = server.url.replace("http://", "https://") + "/x"
    with pytest.raises(SourceError) as error:
        Client().get(url)
    host = server.url.removeprefix("http://")
    assert str(error.value).startswith(f"{host}: its TLS certificate is not trusted (self-signed certificate")


def test_a_trusted_certificate_works_and_the_read_timeout_holds(tls_server, monkeypatch):
    server, cert = tls_server
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))
    server.route("/x", lambda h: h.answer(200, b"over tls"))
    server.route("/slow", lambda h: h.stall(b"["))
    base = server.url.replace("http://", "https://")
    assert Client().get(base + "/x") == b"over tls"
    started = time.monotonic()
    with pytest.raises(SourceError, match=r"stopped sending: nothing arrived for 1 s \(timed out\)"):
        Client().get(base + "/slow")
    assert time.monotonic() - started < 3
