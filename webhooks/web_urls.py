"""The webhooks page (included at /settings/)."""

from django.urls import path

from webhooks import web

urlpatterns = [
    path("webhooks/", web.webhook_list, name="web-webhooks"),
    path("webhooks/<id:pk>/<str:action>/", web.webhook_action, name="web-webhook-action"),
]
