"""The values the export's options take, apart from the modules that use them: `ecot export --help`
lists them without loading the export itself."""

KINDS = ("sft", "preference", "trace")
LAYOUTS = ("messages", "prompt-completion")
FORMATS = ("jsonl", "parquet", "raw")
OVER_LENGTH = ("drop", "keep")
