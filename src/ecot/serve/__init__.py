"""An OpenAI-compatible server (embedded model or replayed answers) for tests, benchmarks and demos."""
