"""Sources: readers of local corpora (and, later, the polite crawler) into the stories table."""
