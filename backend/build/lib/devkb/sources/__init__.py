"""Source loaders: Jira, Confluence and GitHub → ``SourceDocument`` batches."""
