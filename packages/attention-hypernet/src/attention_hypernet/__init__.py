"""attention_hypernet."""
