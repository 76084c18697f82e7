from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/v1/", include("memory.background.urls")),
    path("api/v1/", include("memory.api.urls")),
    path("api/v1/", include("discovery.urls")),
    path("discovery/", include("discovery.web_urls")),
    path("", include("memory.erasure.urls")),
    path("", include("memory.web.urls")),
]
