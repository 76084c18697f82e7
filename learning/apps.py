from django.apps import AppConfig


class LearningConfig(AppConfig):
    """The background jobs that turn conversations into durable knowledge."""

    name = "learning"

    def ready(self) -> None:
        # receivers and tools reach the models, which are importable only once the registry is ready
        from learning import agent_tools, receivers

        receivers.install()
        agent_tools.install()  # its tool (and prompt section) join memory's agent surface
