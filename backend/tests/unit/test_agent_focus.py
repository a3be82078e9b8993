"""What a question asks for (agent/focus.py) and the sentence an extractive answer quotes for it
(agent/extractive.py): recognised from the parse, held by phrase tables, one sentence from the
best source, "the sources mention … but do not say why" with a capped confidence otherwise."""

from __future__ import annotations

from devkb.agent.evidence import EvidenceDoc
from devkb.agent.extractive import focused_sentences, mentions_without, unwrap
from devkb.agent.focus import explains, question_focus, strength
from devkb.agent.question import parse_question
from devkb.store.models import Document, SourceType


def focus(q: str):
    return question_focus(parse_question(q, {"PAY", "WEB"}))


def test_the_focus_of_a_question() -> None:
    assert focus("Why is WEB-7 blocked?").name == "reason"
    assert focus("what is the reason for the 72 hour retention?").name == "reason"
    cond = focus("What happens in checkout when the payments API returns 409?")
    assert cond.name == "condition" and "409" in cond.clause
    who = focus("who rotates the sandbox key?")
    assert who.name == "person" and who.verb == "rotat"
    step = focus("How do we retry failed webhooks?")
    assert step.name == "step" and step.verb == "retry"
    assert focus("What is PAY-12 about?") is None and focus("list open bugs in PAY") is None


def test_which_sentences_hold_it() -> None:
    why = focus("Why is WEB-7 blocked?")
    assert strength(why, "Blocked on the v2 endpoint being deployed to staging.")
    assert not strength(why, "Switch the checkout to /v2/payments behind the checkout.api_v2 flag.")
    assert strength(why, "The retry helper treated timeouts as retryable.", heading="Root cause")
    # purpose and cause worded as people write them: "to enable", "the fact that", "reason to"
    assert strength(why, "The tty group is used by write and wall to enable them to write to ttys.")
    assert strength(why, "This is related to the fact that we use the jQuery UI Dialog plugin.")
    assert strength(why, "With HTML 5 upload viable, I don't see any reason to switch.")
    who = focus("who rotates the sandbox key?")
    assert strength(who, "The sandbox key is rotated every 30 days by Grace Lee.") == 2
    assert not strength(who, "The sandbox key is rotated every 30 days.")  # nobody named
    assert not strength(who, "Grace Lee updates the Vault entry.")  # not the asked verb
    step = focus("How do we disable retries during an outage?")
    assert strength(step, "If you see duplicate charges, disable retries of charge creation:") == 2
    cond = focus("What happens when the payments API returns 409?")
    assert strength(cond, "On 409 we now regenerate the key and refresh the cart.") >= 2
    assert not strength(cond, "One-page checkout, Apple Pay, payments API v2.")
    assert not strength(cond, 'sequence = int(event["sequence"]) if state is not None and (x) == 409')


def test_one_sentence_from_the_best_source_that_holds_it() -> None:
    why = focus("Why is the checkout migration to v2 blocked?")
    passages = [
        (1, "Migrate checkout to v2. Blocked on the v2 endpoint being deployed to staging."),
        (2, "The checkout v2 migration has many tasks and the v2 checkout migration is big news."),
        # holds the question's words and a cue but says nothing else: it restates the question
        (3, "The v2 migration of checkout is blocked because of the checkout migration to v2."),
    ]
    assert focused_sentences("Why is the checkout migration to v2 blocked?", passages, why) == [
        (1, "Blocked on the v2 endpoint being deployed to staging.")
    ]


def test_a_comment_is_said_by_its_author() -> None:
    who = focus("who reviewed the tooltip patch?")
    text = "Fix the tooltip.\n### Jonathan Hung (2011-05-10)\nReviewed the tooltip patch and it looks fine."
    [(n, said)] = focused_sentences("who reviewed the tooltip patch?", [(1, text)], who)
    assert said == "Reviewed the tooltip patch and it looks fine. — Jonathan Hung"


def test_no_sentence_holds_it() -> None:
    why = focus("Why was the refund limit changed?")
    assert (
        focused_sentences("Why was the refund limit changed?", [(1, "The refund limit is 500 EUR.")], why)
        == []
    )
    assert mentions_without(why, "Why was the refund limit changed?", []) == "The sources do not say why."


def test_the_opening_of_the_document_asked_about_says_why() -> None:
    # an issue's description says why it exists, without a cue: it answers when the issue's title
    # holds the question's terms and no sentence of the issue holds the reason by its words
    q = "why are we building webhooks to merchants for payment events?"
    why = focus(q)
    issue = "## Description\nMerchants poll the payment endpoint every minute.\n\n## Comments\nDelivery worker done."
    other = "Webhooks are signed with one secret per merchant endpoint."
    titles = {1: "Deliver payment events to merchants via webhooks", 2: "Webhook Delivery Design"}
    assert focused_sentences(q, [(1, issue), (2, other)], why, titles=titles) == [
        (1, "Merchants poll the payment endpoint every minute.")
    ]
    # without the title it is only a sentence on the topic
    assert focused_sentences(q, [(1, issue), (2, other)], why) == []
    # a sentence of the issue that gives the reason by its words wins over its opening
    cued = issue.replace("Delivery worker done.", "Merchants asked for it because polling is slow.")
    assert focused_sentences(q, [(1, cued)], why, titles=titles) == [
        (1, "Merchants asked for it because polling is slow.")
    ]
    # an opening that holds most of the question's terms restates the title: what, not why
    q2 = "why does API v2 take amounts as integer minor units?"
    pr = "## Description\nFirst part of API v2: it converts decimal amounts to integer minor units."
    assert (
        focused_sentences(q2, [(1, pr)], focus(q2), titles={1: "API v2 amounts as integer minor units"}) == []
    )


def test_what_the_sources_mention_is_said_in_the_questions_words() -> None:
    doc = EvidenceDoc(
        Document(
            "jira:WEB-9",
            SourceType.JIRA,
            "Double payment",
            "Customers were charged twice.",
            "u",
            "2026-04-02",
        ),
        ("Customers were charged twice.",),
    )
    said = mentions_without(
        focus("Why were customers charged twice?"), "Why were customers charged twice?", [doc]
    )
    assert said.startswith("The sources mention charged, customers"), (
        said
    )  # not the stems "charg", "customer"
    assert "do not say why" in said


def test_soft_wrapped_lines_are_joined() -> None:
    text = "ssh-agent is setgid to _ssh in order to\nprevent ptrace attacks.\n## Next\n- one\n- two"
    assert (
        unwrap(text)
        == "ssh-agent is setgid to _ssh in order to prevent ptrace attacks.\n## Next\n- one\n- two"
    )


def test_a_table_row_answers_with_its_headers() -> None:
    page = (
        "## Team\n\n| Name | Role | Ask about |\n| --- | --- | --- |\n"
        "| Priya Raman | Engineering manager | priorities, releases |\n"
        "| Daniel Okafor | Backend engineer | Meridian client, retries |\n"
    )
    found = focused_sentences(
        "who do I ask about retries?", [(1, page)], focus("who do I ask about retries?")
    )
    assert found == [(1, "Name: Daniel Okafor; Role: Backend engineer; Ask about: Meridian client, retries.")]


def test_rare_question_words_outweigh_common_ones() -> None:
    # "meridian" and "event" are in every sentence; "2xx" and "stale" only in the answer, which
    # holds no condition cue but most of the question's weighted terms
    text = (
        "Meridian sends each event once when the payment is captured. "
        "Apply a Meridian event only if its sequence is higher than the last applied one. "
        "Always answer 2xx for stale Meridian events, or Meridian retries them for 48 hours."
    )
    q = "What happens if we do not answer 2xx for a stale Meridian event?"
    found = focused_sentences(q, [(1, text)], focus(q))
    assert found[0] == (
        1,
        "Always answer 2xx for stale Meridian events, or Meridian retries them for 48 hours.",
    )


def test_a_short_head_and_a_colon_explain_it() -> None:
    why = "Why did we close the circuit breaker pull request?"
    said = "Closing the PR: the platform team's resilience library gives us breaker and retry budgets."
    assert focused_sentences(why, [(1, "Draft of the breaker pull request is up. " + said)], focus(why)) == [
        (1, said)
    ]
    assert not explains("Design: Idempotency Keys Design on the wiki.", {"clos", "breaker"})


def test_a_link_line_restates_a_title_and_is_never_the_answer() -> None:
    why = "Why does the order total show 1999.00 instead of 19.99?"
    text = (
        "## Links\n- relates to WEB-6: Order total shows 1999.00 instead of 19.99 on staging\n\n"
        "## Comments\n### Hannah Weber (2026-10-06)\nThe total formatter still assumes v1 decimals because of the flag."
    )
    assert [s for _, s in focused_sentences(why, [(1, text)], focus(why))] == [
        "The total formatter still assumes v1 decimals because of the flag."
    ]


def test_emphasis_a_converted_manual_keeps_is_dropped() -> None:
    text = (
        "- `--append`\n- *Append* the resource use information to the output file instead\nof overwriting it."
    )
    assert "- Append the resource use information to the output file instead of overwriting it." in unwrap(
        text
    )
    # a list bullet, an escaped star and a product keep their stars
    assert unwrap("* one") == "* one"
    assert unwrap("/\\* zpipe.c *\\/ and a * b * c") == "/\\* zpipe.c *\\/ and a * b * c"


def test_the_words_that_ask_and_contractions_are_no_topic() -> None:
    from devkb.agent.confidence import signals

    # "how come" and "if" say what the answer must hold; "won't" leaves "won", a negation
    assert (
        signals("How come bzip2 won't write to a terminal if asked?", []).terms == 3
    )  # bzip2 write terminal
    assert "come" not in signals("how come the build broke", []).missing


def test_a_sentence_that_holds_the_focus_and_most_of_the_question_passes_the_gate() -> None:
    from devkb.agent.extractive import FOCUS_GATE, scored_sentences

    q = "What happens if a second request with the same key arrives while the first is still in flight?"
    text = (
        "Keys are scoped per merchant. "
        "While the first request is in flight a repeat gets `409` with `Retry-After: 1`. "
        "Records expire after 72 hours."
    )
    best = max(scored_sentences(q, [(1, text)], focus(q)), key=lambda c: c.coverage)
    assert best.s.startswith("While the first request is in flight") and best.coverage >= FOCUS_GATE
    # a question about what the sources never mention stays below it
    other = "What happens if the Kafka consumer lags behind the ledger topic?"
    found = scored_sentences(other, [(1, text)], focus(other))
    assert all(c.coverage < FOCUS_GATE for c in found)


def test_an_uncued_sentence_answers_by_its_words_below_a_cued_one() -> None:
    # a comment that says what was wrong holds no reason cue the phrase tables know, but most of the
    # question's rare terms: the answer may quote it (``uncued``); the gates never count it
    q = "why did the uploader drop flash support?"
    why = focus(q)
    issue = (
        "## Description\nThe uploader demo is unresponsive in IE8 with Flash 12.\n\n"
        "## Justin Obara (2014-04-03)\nThe uploader had a cross site scripting vulnerability in its flash "
        "support."
    )
    assert focused_sentences(q, [(1, issue)], why) == []
    found = focused_sentences(q, [(1, issue)], why, uncued=True)
    assert found[0] == (1, "The uploader had a cross site scripting vulnerability in its flash support.")
    # a sentence of the same document that holds the reason by its words still leads, alone: an
    # uncued sentence never completes it
    cued = issue + " We dropped it because flash is a security risk in the uploader."
    assert focused_sentences(q, [(1, cued)], why, uncued=True) == [
        (1, "We dropped it because flash is a security risk in the uploader.")
    ]
    # a lead-in ending with a colon, a line of code and a sentence sharing too little are never quoted
    lead = "## Description\nHere is what the uploader prints when flash support is dropped:"
    assert focused_sentences(q, [(1, lead)], why, uncued=True) == []
    thin = "## Description\nThe uploader has a new progress bar and a new colour scheme for IE8."
    assert focused_sentences(q, [(1, thin)], why, uncued=True) == []
    # the evidence gate's reading is unchanged: no sentence holds the focus
    from devkb.agent.extractive import scored_sentences

    assert scored_sentences(q, [(1, issue)], why) == []


def test_an_uncued_sentence_answers_a_person_or_a_step() -> None:
    q = "who merged the polyfill removal?"
    text = "## Comments\nThe polyfill removal went into the project repo at fa95f26, merged by the build bot."
    assert focused_sentences(q, [(1, text)], focus(q)) == []
    found = focused_sentences(q, [(1, text)], focus(q), uncued=True)
    assert found and "fa95f26" in found[0][1]
    step = "how do i get rid of the grunt distributions warning?"
    text2 = "## Description\nThe warning goes away after downgrading grunt to 1.0.2 for distributions."
    assert focused_sentences(step, [(1, text2)], focus(step)) == []
    assert focused_sentences(step, [(1, text2)], focus(step), uncued=True) == [
        (1, "The warning goes away after downgrading grunt to 1.0.2 for distributions.")
    ]
