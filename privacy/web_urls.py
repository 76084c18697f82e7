"""Erasing a whole memory from the web app (included at /settings/)."""

from django.urls import path

from privacy import web

urlpatterns = [
    path("erase/", web.account_erase, name="web-account-erase"),
]
