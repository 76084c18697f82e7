"""The discovery review queue, included at /discovery/."""

from django.urls import path

from discovery import web

urlpatterns = [
    path("", web.queue, name="web-discovery-queue"),
    path("approve/", web.approve_bulk, name="web-discovery-approve-bulk"),
    path("<int:pk>/approve/", web.approve, name="web-discovery-approve"),
    path("<int:pk>/reject/", web.reject, name="web-discovery-reject"),
    path("consent/", web.consent, name="web-discovery-consent"),
    path("reset/", web.reset, name="web-discovery-reset"),
]
