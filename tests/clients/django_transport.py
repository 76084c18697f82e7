"""An httpx transport that hands each request to Django's test client, in process: the
client package's own HTTP code runs unchanged against the test database."""

import httpx
from django.test import Client


class DjangoTransport(httpx.BaseTransport):
    def __init__(self) -> None:
        self.django = Client()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        headers = {
            f"HTTP_{name.upper().replace('-', '_')}": value
            for name, value in request.headers.items()
            if name.lower() not in {"content-type", "content-length", "host"}
        }
        response = self.django.generic(
            request.method,
            request.url.raw_path.decode("ascii"),
            data=request.read(),
            content_type=request.headers.get("content-type", "application/octet-stream"),
            **headers,
        )
        return httpx.Response(
            response.status_code,
            headers=[(k, v) for k, v in response.headers.items()],
            content=response.content,
            request=request,
        )
