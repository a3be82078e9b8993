"""The phrase tables the frame extractor reads a question with: word sequences (lower case, as
:func:`devkb.agent.question.words_of` splits them) and what each means. Data, not code: a new way
of saying something is a new row. The extractor (:mod:`devkb.agent.frame.extract`) runs them over
the question's words in one pass each."""

from __future__ import annotations

from devkb.memory.conversations import ABOUT_CONVERSATIONS

# -- memory (agent/kinds/remember.py, recall.py) ------------------------------------------------
# a fact to remember: the question opens with one of these, and does not end with "?"
REMEMBER_OPENINGS = (("remember",), ("please", "remember"), ("note", "that"), ("please", "note"))
# a statement opened by one of these tells devkb something to keep ("Actually, the freeze starts on
# 18 December"): remembered like "remember that …" when the rest says something (not a question)
TELLING_OPENINGS = (
    ("actually",), ("correction",), ("fyi",), ("for", "the", "record"), ("just", "so", "you", "know"),
    ("keep", "in", "mind", "that"), ("heads", "up"),
)  # fmt: skip
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
    # a consequence asked ("What happens if Meridian times out?"): a search, not a list or a date
    (("what", "happens"), "search"),
    (("what", "will", "happen"), "search"),
    (("what", "would", "happen"), "search"),
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

# a name right after one of these is the subject of a verb ("which issues did Zed Quux update"):
# a person, whether or not the reader's store knows them
SUBJECT_AUXILIARIES = frozenset({"did", "does", "do", "has", "have", "had"})

# the asker as a person of the documents asked for: "which issues did I report", "what have I
# closed", "which tickets am I assigned to" (the word before "I"), in a question about a set
ASKER_AUXILIARIES = frozenset({"did", "do", "have", "has", "had", "am", "was"})
ASKER_SHAPES = frozenset({"count", "list", "rank", "changed"})
# the particle of a role's verb ("I worked on", "I am assigned to")
PARTICLES = frozenset({"on", "to", "in", "up"})
# "my team's issues", "my manager's bugs": "my" is not the asker's own documents
NOT_MY_OWN = frozenset({"team", "teams", "manager", "managers", "colleagues", "group", "squad", "org"})

# -- a person's role, said before the name ("assigned to Marcus", "filed by Priya") --------------
ROLE_BEFORE: tuple[tuple[tuple[str, ...], str], ...] = (
    # the role named as a field ("where the assignee is Aisha Khan", "with reporter Priya")
    (("assignee", "is"), "assignee"),
    (("assignee",), "assignee"),
    (("reporter", "is"), "reporter"),
    (("reporter",), "reporter"),
    (("author", "is"), "author"),
    (("author",), "author"),
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
    (("from",), "reporter"),  # "bugs from Justin Obara", "which tasks from Cindy Li are open"
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
    # the passive with its particle after the name: "which issues is Aisha Khan assigned to?"
    **dict.fromkeys(("assigned", "assign", "assigns"), "assignee"),
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
    **dict.fromkeys(("update", "modify", "edit"), "updated"),
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
# how an issue was closed (its resolution), as people write it: "closed as won't fix", "marked
# wontfix", "ended up as won't fix" are one state, and the resolution says the issue was closed
RESOLUTIONS: tuple[tuple[tuple[str, ...], str], ...] = (
    (("won", "t", "fix"), "Won't Fix"),
    (("wont", "fix"), "Won't Fix"),
    (("wontfix",), "Won't Fix"),
    (("will", "not", "fix"), "Won't Fix"),
    (("duplicate",), "Duplicate"),
    (("dupe",), "Duplicate"),
    (("cannot", "reproduce"), "Cannot Reproduce"),
    (("can", "t", "reproduce"), "Cannot Reproduce"),
    (("cant", "reproduce"), "Cannot Reproduce"),
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

# a lower-case name may follow these one-word role phrases ("bugs from heidi valles", "tasks by
# justin obara"): kept only when the store knows the name
LOWER_NAME_AFTER: frozenset[str] = frozenset(("from", "by"))
# words of time after "from" / "by" ("bugs from last year", "by yesterday"): never a person's name
TIME_NAMES: frozenset[str] = frozenset(
    ("last", "this", "next", "past", "yesterday", "today", "tomorrow", "now", "then", "q1", "q2", "q3", "q4",
     "week", "month", "quarter", "year", "january", "february", "march", "april", "may", "june", "july",
     "august", "september", "october", "november", "december", "jan", "feb", "mar", "apr", "jun", "jul",
     "aug", "sep", "sept", "oct", "nov", "dec", "monday", "tuesday", "wednesday", "thursday", "friday",
     "saturday", "sunday", "early", "late", "mid", "start", "end", "beginning")
)  # fmt: skip

# -- fragments of conditions ("bugs filed by X with major priority", "closed items in FLUID for
# 3.0", "anything X filed in 2011 that's still open"): what is left of a question that names only
# conditions is these words — a set asked, not a topic to search
ANY_DOCUMENTS: frozenset[str] = frozenset(("items", "item", "things", "anything", "everything", "stuff"))
# the counted nouns a lower-case name may follow, before its verb ("items heidi valles logged")
COUNTED_NOUNS: frozenset[str] = frozenset(
    (
        "items",
        "issues",
        "tickets",
        "bugs",
        "tasks",
        "improvements",
        "features",
        "stories",
        "epics",
        "anything",
    )
)
CONDITION_GLUE: frozenset[str] = (
    frozenset(ROLE_AFTER)
    | frozenset(EVENTS)
    | ANY_DOCUMENTS
    | frozenset(
        ("priority", "prio", "status", "project", "version", "release", "fix", "fixed", "against", "are", "is",
         "was", "were", "has", "have", "had", "that", "which", "came", "come", "went", "total", "filed")
    )
)  # fmt: skip
# a project said by its key in lower case ("tickets for fluid", "sjrk bugs") after one of these
PROJECT_BEFORE: frozenset[str] = frozenset(("in", "for", "of", "from", "on", "under", "against"))
# a period said "from 2012" (no "to" after it) is of that year ("critical bugs from 2012"), and a
# year said as an adjective ("X's 2012 tasks", "2011 FLUID bugs") too: read as "in 2012"
FROM_PERIOD: tuple[str, ...] = ("from",)
RANGE_WORDS: frozenset[str] = frozenset(("to", "until", "till", "through", "thru", "and", "onwards", "on"))

# words that always say a condition: one the extractor left unread in a question about a set is
# said as a condition the answer could not apply (never dropped): a priority, a month, a quarter
SAYS_A_CONDITION: frozenset[str] = frozenset(
    ("blocker", "blockers", "critical", "major", "minor", "trivial", "q1", "q2", "q3", "q4", "january",
     "february", "march", "april", "june", "july", "august", "september", "october", "november",
     "december")
)  # fmt: skip

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
# pronouns and words for anyone: never a person's name ("assigned to them", "filed by someone")
PRONOUNS: frozenset[str] = frozenset(
    ("i", "me", "my", "mine", "we", "us", "our", "ours", "you", "your", "yours", "he", "him", "his", "she",
     "her", "hers", "they", "them", "their", "theirs", "it", "its", "itself", "themselves", "himself",
     "herself", "myself", "yourself", "someone", "somebody", "anyone", "anybody", "everyone", "everybody",
     "nobody", "whoever")
)  # fmt: skip
STOP: frozenset[str] = NOT_NAMES | PRONOUNS | frozenset(
    ("there", "be", "been", "it", "its", "that", "this", "with", "from", "at", "we", "you", "they", "s",
     "get", "got", "me", "our", "my", "still", "not", "most", "top", "anything", "something")
)  # fmt: skip

# how a question opens (a sentence opening otherwise, with no question mark, is a statement)
QUESTION_OPENERS: frozenset[str] = frozenset(
    ("what", "which", "who", "whom", "whose", "when", "where", "why", "how", "is", "are", "was", "were",
     "do", "does", "did", "can", "could", "should", "would", "will", "has", "have", "had", "list", "show",
     "give", "find", "tell", "compare", "explain", "describe", "summarize", "summarise", "count", "any",
     "and", "so", "or", "remember", "please", "note", "get", "search", "look", "in", "since", "for", "between")
)  # fmt: skip
# a type word before these is part of a compound ("story points", "task force"), not an issue type
NOT_A_TYPE_BEFORE: frozenset[str] = frozenset(
    ("point", "points", "pointing", "force", "estimate", "estimates")
)
# words said before the question proper ("hey, where are we on DECA-101"): skipped when deciding
# whether a sentence asks or states
GREETINGS: frozenset[str] = frozenset(
    ("hey", "hi", "hello", "ok", "okay", "um", "uh", "quick", "question", "folks", "team", "all", "there")
)
STATEMENT_VERBS: frozenset[str] = frozenset(
    ("is", "are", "was", "were", "will", "has", "have", "starts", "ends", "uses", "should", "must", "needs",
     "begins", "moved", "changed", "became", "runs", "owns", "happens", "expires", "lasts", "takes",
     "goes", "lives", "belongs", "requires", "closes", "meets", "stays", "went", "got", "had")
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

# -- question forms the kinds recognise (agent/kinds/*): word patterns (agent/frame/match.py), each
# form → its patterns, the first that matches gives the form and its captures. A kind recognises
# itself from the forms and slots of the frame, never from the question's text.
_TYPES_PL = "bugs|tasks|improvements|new_features|sub_tasks|subtasks|stories|epics"
_ONE = "issue|issues|bug|bugs|ticket|tickets|task|tasks|story|stories|pull_request|pull_requests|pr|prs|page|pages"
FORM_MACROS: dict[str, str] = {
    # a status or a code before the counted noun ("open PAY bugs"), the counted noun itself
    "Q": "( open|closed|resolved|reopened|in_progress|<w> )",
    "NOUN": f"( issues|tickets|{_TYPES_PL}|commits|pull_requests|prs|pages|files )",
    # the counted noun, telling which kind of document it is ("the most commits": commits)
    "RNOUN": f"( commits@commit | pull_requests|prs@pull | pages@page | files@file | issues|tickets|{_TYPES_PL} )",
    "ONE": f"( {_ONE} )",
    "SCOPED": f"( {_ONE} ) ( in|of|for|on the? <part> project? )?",
    "CLOSERS": "( we|they|you|i | the? <any>? team )",
    "CLOSE_VERB": "close|fix|resolve|finish|complete|ship",
    "CLOSED_WORD": "closed|fixed|resolved|finished|completed|done|shipped",
    "WERE": "( were|was|got|have_been|has_been )",
    "AMOUNT": "<num>|a|an|one|two|three|four|five|six|nine|twelve",
    "IN_VERSION": (
        "( ship|shipped|ships|fixed|resolved|closed|done|released|landed|included|delivered|went|goes|"
        "going|planned|scheduled|targeted|slated|open|left|remaining|outstanding|pending|unresolved "
        "in|into|for | new in | in|for|of|from|into the? release|version | fix version )"
    ),
    "NAME": "<Cap>{1,4}@name",
    "TARGET": "( of|in|for|from the? ( <word> <word>? )@target project? )?",
    "VN": "the? ( <word>@target )? release|version? <ver>@version ( release|version )?",
    "VERB": "( fix|close|resolve|finish|complete|ship|merge|review | get fixed|closed|resolved|merged )",
    "WNOUN": "issue|issues|bug|bugs|ticket|tickets|task|tasks|story|stories|feature|features|pull_request|"
    "pull_requests|pr|prs|fix|fixes|review|reviews",
}
FORMS: dict[str, tuple[str, ...]] = {
    # -- counts and lists (kinds/count.py) --
    "how_many": ("( how_many | the? number|count of ) {Q}* {NOUN}",),
    "listed": (
        "what|which {Q}* {NOUN} are|were|is still? open|closed|merged|resolved|reopened|in_progress",
        "list|show me? all? the? {Q}* {NOUN}",
        "what|which are all? the {Q}+ {NOUN}",
        "what|which {Q}+ {NOUN} ( are_there | do we|you|i have )",
        "what|which {Q}* {NOUN} ( did {CLOSERS} {CLOSE_VERB} | were|got|have_been {CLOSED_WORD} )",
    ),
    "closing": ("did {CLOSERS} {CLOSE_VERB}", "{WERE} {CLOSED_WORD}"),
    "in_key": ("in|of|for <KEY>@key",),
    "recent": ("recent|latest|newest|most_recent|last <num>?@n {Q}* {NOUN}",),
    "recent_one": (
        "most_recent|latest|newest|last ( open|closed|merged|<w> )* "
        "commit|pull_request|pr|issue|bug|ticket|page|file ( in|of|for|on <part> )? $",
    ),
    "recently_updated": (
        "what|which {Q}* {NOUN} {WERE} updated|edited|changed|modified|touched most? recently|lately|last",
        "most? recently updated|edited|changed|modified|touched {Q}* {NOUN}",
    ),
    "newest_created": (
        "most_recent|most_recently|latest|newest|last ( <num>|open|closed|<w> )* {ONE} "
        "( to_be | that was|were | we|they|someone )? created|opened|filed|reported|raised|logged|submitted",
        "{SCOPED} {WERE} created|opened|filed|reported|raised|logged most? recently",
        "most? recently created|opened|filed|reported|raised {ONE}",
    ),
    "newest_resolved": (
        "{SCOPED} {WERE} most? recently|just|lately|last closed|resolved|fixed|finished|completed|done",
        "{SCOPED} {WERE} closed|resolved|fixed|finished|completed most? recently|lately|last",
        "most? recently closed|resolved|fixed|finished|completed {ONE}",
        "last|latest|newest|most_recent <num>? {ONE} that? ( we|they|you|the_team )? "
        "closed|resolved|fixed|finished|completed",
    ),
    "oldest": (
        "oldest|earliest ( <num>|open|unresolved|closed|<w> )* {ONE}",
        "first <num>? {ONE} ever? created|opened|filed|reported|raised|logged",
    ),
    "one_newest": (
        "most_recent|most_recently|latest|newest|last|oldest|earliest ( open|unresolved|closed|<w> )* "
        "issue|bug|ticket|task|story|pull_request|pr|page",
        "most? recently created|opened|filed|reported|raised|closed|resolved|fixed "
        "issue|bug|ticket|task|story|pull_request|pr|page",
        "^ what|which <w>? issue|bug|ticket|task|story|pull_request|pr|page ( in|of|for <part> )? was|got",
    ),
    "stale": (
        "not|t|never been? updated|touched|changed|modified|edited|moved in|for|since|over "
        "( the? last|past | more_than | over )? ( {AMOUNT} )?@n years|year|months|month|weeks|week|days|day@unit",
        "stale|untouched|abandoned|dormant@stale open? {ONE}",
        "{ONE} <any>{0,3}? is|are|look|looks|seem|seems|have_gone|went stale|untouched|abandoned|dormant@stale",
    ),
    "list_asked": (
        "^ which|what|list|show|how_many|are_there|find|give|any|stale|untouched|abandoned|dormant",
    ),
    "assigned": (
        "assigned to <Cap>{1,4}@name",
        "<Cap>{1,3}@name s ( open|closed|resolved|in_progress )? issues|bugs|tickets|tasks",
    ),
    "priority": (
        "highest|high|medium|normal|low|lowest|top@p priority",
        "priority highest|high|medium|low|lowest|blocker|critical|major|minor|trivial@p",
        "blocker|critical@p bugs|issues|tickets|tasks",
        "blockers@p",
    ),
    "unassigned": (
        "unassigned",
        "not yet? assigned ( to anyone|anybody )?",
        "have|has|with no assignee",
        "without a|an? assignee",
        "nobody|noone|no_one|no_body is? assigned",
        "assigned to =nobody|noone|no_one|no_body",
    ),
    "awaiting_review": (
        "waiting|wait|waits|pending for|on? a|an? review|approval",
        "awaiting review|approval",
        "need|needs a|an? review|approval",
        "up|ready for review",
        "not yet? been? reviewed|approved",
        "unreviewed|unapproved",
        "without a|an? review|approval",
    ),
    "left": ("left|remaining|outstanding|pending|unresolved|still_to_do|to_go",),
    "fix_version": (
        "{IN_VERSION} ( the? !release|version <word> )? release|version? <ver>@v "
        "!percent|days|day|hours|hour|minutes|minute|weeks|week|ms|seconds|second",
        "in|for|of|into the? <word>? <ver>@v release",
    ),
    "created": ("reported|created|opened|filed|raised|logged",),
    "merged": ("merged",),
    # -- releases (kinds/releases.py): the whole question --
    "release_one": (
        "^ so|and? what|which ( s|is|was|will_be )? the|our? ( <word>@target s )? "
        "( latest|newest|most_recent|last|current|highest|next|upcoming|previous )@which ( !fix <word>@target )? "
        "fix? release|version ( that? we|they|you released|shipped|put_out|cut|made )? {TARGET} $",
        "^ what|which ( <word>@target )? release|version "
        "( comes_next | is_coming_next | is_next | is_coming | is_planned_next )@soon {TARGET} $",
        "^ when was|is|will_be the|our? ( latest|last|most_recent|next|upcoming )@which release|version {TARGET} $",
        "^ when did we|they|you last release|ship {TARGET} $",
    ),
    "release_when": (
        "^ ( when was|is|will|did|does | is|has|was ) the? ( <word>@target )? release|version? <ver>@version release? "
        "be|been|get|got? released|shipped|ship|out|come_out|came_out|cut|published|due|going_out yet? $",
        "^ ( what s|is the )? status|state|progress of|on|for {VN} $",
        "^ how is|are ( things with|for )? {VN} going|coming_along|doing|progressing $",
        "^ where ( are_we | do_we_stand ) with|on {VN} $",
    ),
    "release_who": ("^ who ( s|is|are )? working|assigned on|to {VN} $",),
    "release_blocking": (
        "^ ( what | which issue|issues ) ( s|is|are )? ( still? blocking | holding_up | holding_back | in_the_way_of "
        "| standing_in_the_way_of | left before|for | delaying ) {VN} "
        "( from? shipping|being_released|release|can_ship|ships )? $",
    ),
    "release_all": (
        "^ what|which fix? releases|versions ( are_there | do_we_have | exist | have_we had|shipped ) {TARGET} $",
        "^ list|show me? all? the? fix? releases|versions {TARGET} $",
        "^ what|which fix? releases|versions does|did|has ( <word> <word>? )@target have|had|shipped $",
    ),
    # -- durations (kinds/durations.py) --
    "duration": (
        "how long does|do|did|will|would it? usually|typically? take ( us | the_team | them | you | people )? to? {VERB}",
        "how long does|do|did|will|would a|an|the|our? <w>? {WNOUN} usually|typically? "
        "take|stay_open|remain_open|wait|sit|last",
        "average|mean|median|typical|usual ( resolution|turnaround|cycle|lead|review|merge )? "
        "time|duration|number_of_days",
        "resolution|turnaround|cycle|lead time|times",
        "time to fix|close|resolve|merge",
    ),
    "work": ("( {WNOUN} | {VERB} | fixed|closed|resolved|merged|resolution|turnaround|cycle|lead )",),
    "pulls": ("pull_request|pull_requests|pr|prs|merge|merged",),
    # -- rankings (kinds/ranking.py): the role a "who … the most" ranks people in --
    "rank_people": (
        "who ( reported|filed|created|opened|raised|logged|submitted@reporter "
        "| fixed|closed|resolved|finished|completed|shipped@fixer "
        "| wrote|authored|committed|made|pushed|edited@author "
        "| ( is|are|was|were|has_been assigned | has|have|had|owns|holds|works_on )@assignee ) the? most {Q}* {RNOUN}",
    ),
    "rank_comments": (
        "which|what {Q}* {RNOUN} have|has|had|got the? most comments",
        "most commented|discussed on? issue|issues|bug|bugs|ticket|tickets|task|tasks",
        "{RNOUN} with the most comments",  # (a status or code before it changes nothing)
    ),
    # -- a person's work (kinds/person_work.py): the name as written, capitalised --
    "person_work": (
        "what did|does|do|has|have|is|was|were {NAME} been? "
        "( work|worked|working|works on | done|doing|finish|finished|ship|shipped|fix|fixed )",
        "show|list me? {NAME} s? work|issues|tickets|commits|pull_requests|prs",
    ),
    "closed_by": (
        "what|which ( issues|bugs|tickets|tasks|stories )? did|has|have {NAME} close|closes|closed|resolve|resolves|resolved",
        "issues|bugs|tickets|tasks that? ( were|got )? closed|resolved by {NAME}",
    ),
    "created_by": (
        "what|which ( issues|bugs|tickets|tasks|stories|commits|pull_requests|prs|pages )@noun did|has|have {NAME} "
        "open|opened|create|created|creates|write|wrote|written|author|authored|made|make|submit|submitted|push|pushed|"
        "report|reported|file|filed|files|raise|raised|raises|log|logged",
    ),
    "now": ("is|are <any>{1,4}? ( working on | doing )",),
    # -- mentions of words (kinds/mentions.py): the phrase, up to six words, and a project after it --
    "mentions": (
        "mention|mentions|mentioned|mentioning|reference|references|referenced|referencing|cite|cites|cited|citing "
        "of|to? ( a|an|the|any )? <any>{1,6}?@phrase ( =in|from|of the? <KEY>@project project? )? $",
    ),
    # -- blocked (kinds/blocked.py): "blocked", or waiting on something / other / another --
    "blocked": ("blocked", "waiting on something|other|others|another"),
    # -- comparison (kinds/comparison.py), with two documents named --
    "compare": ("compare|comparison|vs|versus|differ", "difference|differences between"),
    # -- resolved in a period (kinds/resolved.py): a resolving word --
    "resolving": (
        "resolve|resolved|close|closed|closes|fixed|done|complete|completed|completes|shipped|solved"
        "|finish|finished|finishes|finishing",
    ),
    # -- who to ask (kinds/who_to_ask.py) --
    "expert": (
        "who knows|know|owns",
        "who should|can|do i ask",
        "who to ask",
        "who should|can i talk to",
        "who to talk to",
        "who should i contact",
        "who can help",
        "who is|s the expert",
        "expert|experts on",
        "who is|s working on",
        "who works|worked on",
        "who has worked on",
    ),
}
# the status words a count reads as statuses ("open", "in progress"), as they name them
STATE_WORDS: tuple[tuple[tuple[str, ...], str], ...] = (
    (("open",), "Open"),
    (("closed",), "Closed"),
    (("resolved",), "Resolved"),
    (("reopened",), "Reopened"),
    (("in", "progress"), "In Progress"),
)
