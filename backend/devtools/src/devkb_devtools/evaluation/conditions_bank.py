"""Combined conditions as people type them in chat: a bank of phrasing templates, none of them the
evaluation's own "How many … are there …" — possessives ("Justin Obara's open bugs in FLUID"),
fragments without a verb ("critical FLUID bugs from 2012"), a condition in a relative clause
("anything X filed in 2011 that's still open"), a leading period ("in Q3 2011, how many …"),
lower case and no question mark, "tickets" / "issues" / "items", "came in" / "got filed", "by X" /
"from X", a project by its key and by its name (the Jira project's name, "Fluid Infusion" or
"Decapod"). Each template names its conditions by placeholder; the expected count is worked out from
the raw JSON (:mod:`devkb_devtools.evaluation.conditions_eval`).

The templates are split in two **by template**: ``TUNING`` may be looked at while changing the code;
``HELDOUT`` (other templates) is scored once before and once after, never read while tuning.

What a placeholder means (and the raw field it tests):

- ``{assignee}`` the assignee's display name; ``{reporter}`` the reporter's
- ``{proj}`` a project key (``FLUID``); ``{pname}`` the same project by its name (``Fluid Infusion``)
- ``{types}`` an issue type in the plural (``bugs``); ``{status}`` a status as an adjective
  (``open``), ``{Status}`` as Jira names it (``Open``); ``{prio}`` a priority (``critical``)
- ``{version}`` a fix version (``1.5``)
- ``{year}`` created in that year; ``{ryear}`` resolved in that year; ``{month}`` created in that
  month (``March 2011``); ``{q}`` created in that quarter (``Q3 2011``)
- ``{noun}`` no condition: "tickets", "issues" or "items"
- a template marked ``still_open``: unresolved (no resolution and a status other than
  Done / Closed / Resolved — the product's "still open"); ``lower``: the whole question in lower case
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Template:
    text: str
    still_open: bool = False
    lower: bool = False


TUNING: tuple[Template, ...] = (
    Template("{assignee}'s {status} {types} in {proj}"),
    Template("{prio} {proj} {types} from {year}"),
    Template("anything {reporter} filed in {year} that's still open", still_open=True),
    Template("{types} in {version} assigned to {assignee}"),
    Template("how many tickets did {assignee} fix in {ryear}"),
    Template("{assignee}'s {year} {types}"),
    Template("in {q}, how many {types} were reported in {proj}?"),
    Template("number of {status} {prio} issues in {proj}"),
    Template("how many {noun} came in for {proj} in {month}", lower=True),
    Template("{types} filed by {reporter} with {prio} priority"),
    Template("what {status} {types} does {pname} have?"),
    Template("how many {pname} {types} were created in {year}?"),
    Template("{status} {noun} in {proj} for {version}"),
    Template("which {types} from {reporter} are {status}?"),
    Template("{noun} {assignee} has in {proj} that are still open", still_open=True),
    Template("{prio} {types} in {pname} from {year}"),
)

HELDOUT: tuple[Template, ...] = (
    Template("How many {types} did {reporter} file in {proj} in {year}?"),
    Template("{types} reported by {reporter} in {q}", lower=True),
    Template("{pname} {status} {types}"),
    Template("show me {prio} {types} fixed in {version}"),
    Template("how many {noun} did {reporter} report in {pname} during {year}"),
    Template("number of {types} {assignee} has that are still open", still_open=True),
    Template("{year} {proj} {types} with {prio} priority"),
    Template("any {status} {noun} assigned to {assignee} in {version}?"),
    Template("{types} by {reporter} in {proj}"),
    Template("how many {prio} issues got filed in {month}"),
    Template("{assignee} {status} {types}", lower=True),
    Template("total {types} in {pname} resolved in {ryear}"),
    Template("in {year} how many {noun} were created in {proj} with status {Status}"),
    Template("{noun} {reporter} logged against {version}"),
)
