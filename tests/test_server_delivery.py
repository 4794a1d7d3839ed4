"""Delivering the page: compressed, revalidated by ETag, and the
service worker's app shell (server/delivery.py)."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient
from server_support import app_for

from binokel.server.delivery import service_worker, shell_paths, web_dir


def client(tmp_path: Path) -> TestClient:
    return TestClient(app_for(tmp_path / "games.db"))


def test_static_files_catalogues_and_json_are_compressed(tmp_path: Path) -> None:
    with client(tmp_path) as http:
        for path in ("/", "/static/js/table.js", "/static/css/style.css", "/i18n/de.json", "/api/meta"):
            response = http.get(path, headers={"Accept-Encoding": "gzip"})
            assert response.status_code == 200, path
            assert response.headers.get("content-encoding") == "gzip", path
        raw = (web_dir() / "js" / "table.js").stat().st_size
        sent = http.get("/static/js/table.js", headers={"Accept-Encoding": "gzip"})
        assert int(sent.headers["content-length"]) < raw / 2  # the body as sent (httpx decodes it)
        plain = http.get("/static/js/table.js", headers={"Accept-Encoding": "identity"})
        assert "content-encoding" not in plain.headers and len(plain.content) == raw


def test_the_page_its_files_and_catalogues_are_revalidated_by_etag(tmp_path: Path) -> None:
    with client(tmp_path) as http:
        for path in ("/", "/pad", "/sw.js", "/static/js/app.js", "/static/img/icon.svg", "/i18n/en.json"):
            first = http.get(path)
            assert first.headers["cache-control"] == "no-cache", path
            etag = first.headers["etag"]
            again = http.get(path, headers={"If-None-Match": etag})
            assert again.status_code == 304 and again.content == b"", path
            assert http.get(path, headers={"If-None-Match": '"other"'}).status_code == 200, path
        assert "cache-control" not in http.get("/api/meta").headers  # the API is not kept


def test_the_service_worker_holds_the_whole_app_shell(tmp_path: Path) -> None:
    web = web_dir()
    shell = shell_paths(web)
    modules = {f"/static/js/{f.name}" for f in (web / "js").glob("*.js")}
    assert modules <= set(shell) and "/" in shell and "/static/css/style.css" in shell
    with client(tmp_path) as http:
        text = http.get("/sw.js").text
    assert text == service_worker().decode() and "// @shell" not in text
    for path in shell:  # every file of the shell is served (the worker's install fails on one 404)
        assert f'"{path}"' in text
    with client(tmp_path) as http:
        assert all(http.get(path).status_code == 200 for path in shell)
