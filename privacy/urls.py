"""Erasing a whole memory through the API (included under /api/v1/)."""

from django.urls import path

from privacy import api

urlpatterns = [
    path("account/erase/", api.AccountEraseView.as_view(), name="api-account-erase"),
]
