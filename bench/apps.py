from django.apps import AppConfig


class BenchConfig(AppConfig):
    """The benchmark commands: memory_eval, memory_bench, load_bench."""

    name = "bench"
