from django.apps import AppConfig


class LearningConfig(AppConfig):
    """The background jobs that turn conversations into durable knowledge."""

    name = "learning"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # receivers reach the models, which are importable only once the registry is ready
        from learning import receivers

        receivers.install()
