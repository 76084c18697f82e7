"""Erasing a whole memory: the API endpoint and the web page (full paths: one include)."""

from django.urls import path

from memory.erasure import api, web

urlpatterns = [
    path("api/v1/account/erase/", api.AccountEraseView.as_view(), name="api-account-erase"),
    path("settings/erase/", web.account_erase, name="web-account-erase"),
]
