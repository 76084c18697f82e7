from django.apps import AppConfig


class SkillsConfig(AppConfig):
    """Skill memory: what agents of one type learned to do, shared by all their users."""

    name = "skills"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # receivers reach the models, which are importable only once the registry is ready
        from skills import receivers

        receivers.install()
