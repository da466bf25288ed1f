"""porter on pull requests: one core behind the GitHub Action (`porter github`) and the GitHub App (`porter serve`).

The flow of one run: the parsed diff of the pull request (`diff`) and a checkout of its head go
to `analyze`, which ports what the change touches in a sandboxed process (`sandbox`) with
porter's own graph, and turns porter's report and the fixes that are right on both vendors
(`suggest`) into a `Plan` (`plan`): one check run, at most one review, one summary comment.
`publish` sends a Plan through githubkit; `action` is the Action's front end and `app` the
App's (webhook, delivery and job tables in SQLite, the worker, slash commands).
"""
