"""Training on an ecot corpus: supervised fine-tuning of a causal LM with TRL (`ecot train sft`)."""

from ecot.train.data import Corpus, load_corpus
from ecot.train.sft import TrainResult, TrainSettings, train_sft

__all__ = ["Corpus", "TrainResult", "TrainSettings", "load_corpus", "train_sft"]
