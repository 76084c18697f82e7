"""System check: an LLM call must end before django-q2 gives up on its task."""

from django.conf import settings
from django.core.checks import Warning, register


@register()
def llm_deadline_below_task_timeout(app_configs, **kwargs) -> list[Warning]:
    task_timeout = settings.Q_CLUSTER.get("timeout") or 0
    if settings.GAIA_LLM_URL and task_timeout and settings.GAIA_LLM_TIMEOUT >= task_timeout:
        return [
            Warning(
                "GAIA_LLM_TIMEOUT is not below GAIA_Q_TIMEOUT: a slow LLM call would be "
                "killed with its task instead of ending as a counted failure.",
                id="gaia.W001",
            )
        ]
    return []
