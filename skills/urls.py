from django.urls import path

from skills import api

urlpatterns = [
    path("skills/search/", api.SkillSearchView.as_view(), name="api-skills-search"),
    path("skills/<id:pk>/validate/", api.SkillValidateView.as_view(), name="api-skill-validate"),
]
