"""The phrase tables the frame extractor reads a question with: word sequences (lower case, as
:func:`devkb.agent.question.words_of` splits them) and what each means. Data, not code: a new way
of saying something is a new row. The extractor (:mod:`devkb.agent.frame.extract`) runs them over
the question's words in one pass each."""

from __future__ import annotations

from devkb.memory.conversations import ABOUT_CONVERSATIONS

# -- memory (agent/kinds/remember.py, recall.py) ------------------------------------------------
# a fact to remember: the question opens with one of these, and does not end with "?"
REMEMBER_OPENINGS = (("remember",), ("please", "remember"), ("note", "that"), ("please", "note"))
NOT_A_STATEMENT = (("remember", "when"), ("remember", "what"), ("remember", "who"), ("remember", "how"))
FOR_THE_TEAM = (("for", "the", "team"), ("for", "everyone"), ("for", "the", "whole", "team"))
# about one's own earlier conversations and memories: anywhere in the question
ABOUT_MEMORIES = (
    ("what", "do", "you", "remember"),
    ("what", "did", "i", "ask", "you", "to", "remember"),
    ("what", "have", "you", "remembered"),
)
RECALL = ABOUT_CONVERSATIONS + ABOUT_MEMORIES

# -- shape: the first row whose phrase occurs decides (the order is the precedence) --------------
SHAPES: tuple[tuple[tuple[str, ...], str], ...] = (
    (("how", "many"), "count"),
    (("number", "of"), "count"),
    (("count", "of"), "count"),
    (("count", "the"), "count"),
    (("the", "most"), "rank"),
    (("most", "bugs"), "rank"),
    (("most", "issues"), "rank"),
    (("top",), "rank"),
    (("compare",), "compare"),
    (("difference", "between"), "compare"),
    (("as", "of"), "history"),
    (("what", "changed"), "changed"),
    (("when",), "when"),
    (("who",), "who"),
    (("whom",), "who"),
    (("list",), "list"),
    (("show",), "list"),
    (("which",), "list"),
    (("what",), "list"),
    (("give", "me"), "list"),
    (("find",), "list"),
    (("any",), "list"),
    (("are", "there"), "list"),
)

# -- a person's role, said before the name ("assigned to Marcus", "filed by Priya") --------------
ROLE_BEFORE: tuple[tuple[tuple[str, ...], str], ...] = (
    (("assigned", "to"), "assignee"),
    (("owned", "by"), "assignee"),
    (("handled", "by"), "assignee"),
    (("worked", "on", "by"), "assignee"),
    (("reported", "by"), "reporter"),
    (("filed", "by"), "reporter"),
    (("opened", "by"), "reporter"),
    (("created", "by"), "reporter"),
    (("raised", "by"), "reporter"),
    (("logged", "by"), "reporter"),
    (("submitted", "by"), "reporter"),
    (("written", "by"), "author"),
    (("authored", "by"), "author"),
    (("committed", "by"), "author"),
    (("merged", "by"), "author"),
    (("closed", "by"), "mover"),
    (("resolved", "by"), "mover"),
    (("fixed", "by"), "assignee"),
    (("commented", "on", "by"), "commenter"),
    (("comments", "by"), "commenter"),
    (("for",), "assignee"),
    (("involving",), "involved"),
    (("by",), "reporter"),
)

# -- a person's role, said by the verb after the name ("did Priya file", "Marcus worked on") -------
ROLE_AFTER: dict[str, str] = {
    **dict.fromkeys(
        ("file", "filed", "files", "report", "reported", "reports", "raise", "raised"), "reporter"
    ),
    **dict.fromkeys(
        ("log", "logged", "submit", "submitted", "create", "created", "open", "opened"), "reporter"
    ),
    **dict.fromkeys(
        ("work", "worked", "working", "works", "fix", "fixed", "fixes", "own", "owns"), "assignee"
    ),
    **dict.fromkeys(
        ("handle", "handled", "handling", "get", "got", "take", "took", "have", "has"), "assignee"
    ),
    **dict.fromkeys(
        ("close", "closed", "closes", "resolve", "resolved", "resolves", "move", "moved"), "mover"
    ),
    **dict.fromkeys(("comment", "commented", "comments"), "commenter"),
    **dict.fromkeys(("commit", "committed", "write", "wrote", "written", "author", "authored"), "author"),
    **dict.fromkeys(("push", "pushed", "merge", "merged", "make", "made"), "author"),
    "s": "assignee",  # "Marcus's bugs" (the possessive, as words_of splits it)
}
# on documents of these kinds the person who opened them is their author
AUTHORED_KINDS = ("pull", "commit", "page", "file")

# -- the event a period dates: the first of these verbs in the question ------------------------
EVENTS: dict[str, str] = {
    **dict.fromkeys(
        ("created", "create", "filed", "file", "reported", "report", "opened", "open", "raised", "raise"),
        "created",
    ),
    **dict.fromkeys(("logged", "submitted", "got", "get", "new", "came", "arrived", "added"), "created"),
    **dict.fromkeys(
        ("closed", "close", "resolved", "resolve", "fixed", "fix", "finished", "completed"), "resolved"
    ),
    **dict.fromkeys(("done", "shipped", "merged", "delivered"), "resolved"),
    **dict.fromkeys(
        ("updated", "changed", "touched", "modified", "edited", "active", "worked", "work"), "updated"
    ),
    **dict.fromkeys(("working", "doing", "did"), "updated"),
}

# -- states ------------------------------------------------------------------------------------
STATUSES: tuple[tuple[tuple[str, ...], str], ...] = (
    (("in", "progress"), "In Progress"),
    (("to", "do"), "To Do"),
    (("in", "review"), "In Review"),
    (("reopened",), "Reopened"),
    (("open",), "Open"),
    (("closed",), "Closed"),
    (("resolved",), "Resolved"),
    (("done",), "Done"),
    (("merged",), "merged"),
)
UNRESOLVED: tuple[tuple[str, ...], ...] = (
    ("unresolved",),
    ("not", "resolved"),
    ("not", "done"),
    ("not", "closed"),
    ("not", "fixed"),
    ("outstanding",),
    ("still", "open"),
    ("pending",),
)
# a state word right after these is something that happened (an event), not an adjective
HAPPENED: frozenset[str] = frozenset(("did", "were", "was", "got", "been", "get", "we", "they", "he", "she"))

# a priority word → the priorities it means, in Jira Cloud's scheme (Highest … Lowest) and Data
# Center's (Blocker … Trivial): "high priority" is either scheme's top two
PRIORITIES: dict[str, tuple[str, ...]] = {
    "blocker": ("Blocker",),
    "blockers": ("Blocker",),
    "critical": ("Critical",),
    "major": ("Major",),
    "minor": ("Minor",),
    "trivial": ("Trivial",),
    "highest": ("Highest", "Blocker"),
    "top": ("Highest", "Blocker"),
    "high": ("Highest", "High", "Blocker", "Critical"),
    "medium": ("Medium", "Major"),
    "normal": ("Medium", "Major"),
    "low": ("Low", "Lowest", "Minor", "Trivial"),
    "lowest": ("Lowest", "Trivial"),
}

ISSUE_TYPES: tuple[tuple[tuple[str, ...], str], ...] = (
    (("new", "features"), "New Feature"),
    (("new", "feature"), "New Feature"),
    (("feature", "requests"), "New Feature"),
    (("sub", "tasks"), "Sub-task"),
    (("sub", "task"), "Sub-task"),
    (("subtasks",), "Sub-task"),
    (("subtask",), "Sub-task"),
    (("bugs",), "Bug"),
    (("bug",), "Bug"),
    (("tasks",), "Task"),
    (("task",), "Task"),
    (("improvements",), "Improvement"),
    (("improvement",), "Improvement"),
    (("stories",), "Story"),
    (("story",), "Story"),
    (("epics",), "Epic"),
    (("epic",), "Epic"),
)
KINDS: tuple[tuple[tuple[str, ...], str], ...] = (
    (("pull", "requests"), "pull"),
    (("pull", "request"), "pull"),
    (("prs",), "pull"),
    (("pr",), "pull"),
    (("commits",), "commit"),
    (("commit",), "commit"),
    (("pages",), "page"),
    (("files",), "file"),
    (("issues",), "issue"),
    (("issue",), "issue"),
    (("tickets",), "issue"),
    (("ticket",), "issue"),
)

VERSION_BEFORE: tuple[tuple[str, ...], ...] = (
    ("fix", "version"),
    ("version",),
    ("release",),
    ("fixed", "in"),
    ("targeted", "at"),
    ("for",),
    ("in",),
)

ORDER: dict[str, str] = {
    "latest": "newest",
    "newest": "newest",
    "recent": "newest",
    "last": "newest",
    "oldest": "oldest",
    "earliest": "oldest",
    "first": "oldest",
}

# capitalised words that never start a person's name
NOT_NAMES: frozenset[str] = frozenset(
    (
        "i", "what", "which", "who", "when", "how", "where", "why", "list", "show", "give", "find", "is", "are",
        "did", "does", "do", "has", "have", "was", "were", "can", "could", "the", "a", "an", "any", "all",
        "in", "on", "for", "by", "of", "to", "and", "or", "since", "before", "after", "between", "during",
        "january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
        "november", "december", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov",
        "dec", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "q1", "q2", "q3",
        "q4", "jira", "confluence", "github", "pr", "prs", "bug", "bugs", "task", "tasks", "story", "epic",
        "open", "closed", "resolved", "done", "reopened", "priority", "version", "release", "project",
        "blocker", "critical", "major", "minor", "trivial", "high", "low", "medium", "highest", "lowest",
        "new", "feature", "features", "improvement", "improvements", "please", "remember", "tell", "me",
        "how", "many", "count", "number", "last", "this", "next", "week", "month", "year", "quarter",
        "today", "yesterday", "ago", "issue", "issues", "ticket", "tickets", "sub", "subtask", "in-progress",
    )
)  # fmt: skip
STOP: frozenset[str] = NOT_NAMES | frozenset(
    ("there", "be", "been", "it", "its", "that", "this", "with", "from", "at", "we", "you", "they", "s",
     "get", "got", "me", "our", "my", "still", "not", "most", "top")
)  # fmt: skip

# how a question opens (a sentence opening otherwise, with no question mark, is a statement)
QUESTION_OPENERS: frozenset[str] = frozenset(
    ("what", "which", "who", "whom", "whose", "when", "where", "why", "how", "is", "are", "was", "were",
     "do", "does", "did", "can", "could", "should", "would", "will", "has", "have", "had", "list", "show",
     "give", "find", "tell", "compare", "explain", "describe", "summarize", "summarise", "count", "any",
     "and", "so", "or", "remember", "please", "note", "get", "search", "look", "in", "since", "for", "between")
)  # fmt: skip
STATEMENT_VERBS: frozenset[str] = frozenset(
    ("is", "are", "was", "were", "will", "has", "have", "starts", "ends", "uses", "should", "must", "needs",
     "begins", "moved", "changed", "became", "runs", "owns")
)  # fmt: skip
# a state word followed by one of these dates an event ("closed in 2024", "resolved last month")
WHEN_WORDS: frozenset[str] = frozenset(
    ("in", "during", "since", "before", "after", "between", "last", "this", "yesterday", "today", "on")
)
# "compare A with B", "difference between A and B", "A vs B"
COMPARE_JOINERS: frozenset[str] = frozenset(("with", "and", "to", "vs", "versus", "against"))
# words around a title that are not part of it ("the … page", "the … doc")
TITLE_NOISE: frozenset[str] = frozenset(
    ("the", "a", "an", "page", "pages", "doc", "docs", "document", "wiki", "confluence", "file")
)
