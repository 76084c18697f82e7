"""The discovery review queue, included at /discovery/."""

from django.urls import path

from core.api.routes import actions
from discovery import web

urlpatterns = [
    path("", web.queue, name="web-discovery-queue"),
    path("approve/", web.approve_bulk, name="web-discovery-approve-bulk"),
    *actions("", "web-discovery", {"approve": web.approve, "reject": web.reject}),
    path("consent/", web.consent, name="web-discovery-consent"),
    path("reset/", web.reset, name="web-discovery-reset"),
]
