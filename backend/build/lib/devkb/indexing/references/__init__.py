"""Finding REFERENCES in document text: issue keys, URLs, titles."""
