"""How the LoCoMo evaluation scores an answer (devkb_devtools.evaluation.locomo_eval): contains
gold after normalising, a gold day found however it is written, LoCoMo's token F1, and the
sessions a sample is told as."""

from datetime import date

from devkb_devtools.evaluation.locomo_eval import contains_gold, gold_days, locomo_f1, score, sessions_of


def test_contains_gold_normalises_and_reads_days_written_another_way() -> None:
    assert contains_gold("She said: “The Lanterns!”", "the lanterns")
    assert contains_gold("on 2023-05-07 she went", "7 May 2023")
    assert contains_gold("on May 7, 2023 she went", "7 May, 2023")
    assert not contains_gold("on 8 May 2023 she went", "7 May 2023")
    # a weekday before a day names one day; a week or a weekend names none
    assert gold_days("The Saturday before 25 May 2023") == {date(2023, 5, 20)}
    assert gold_days("The friday before 15 July 2023") == {date(2023, 7, 14)}
    assert gold_days("The week before 9 June 2023") == set()
    assert contains_gold("it was 20 May 2023", "The Saturday before 25 May 2023")


def test_f1_as_locomo_computes_it() -> None:
    assert locomo_f1("Melanie ran", "Melanie ran", 4) == 1.0
    assert locomo_f1("pottery, camping", "pottery, camping, painting, swimming", 1) == 0.5
    assert locomo_f1("likely no", "Likely no; she wants to be a counselor", 3) == 1.0
    assert score({"category": 5, "question": "q"}, {"status": "not_found", "answer": "…"}) == (True, 1.0)
    assert score({"category": 5, "question": "q"}, {"status": "answered", "answer": "…"}) == (False, 0.0)


def test_sessions_are_told_as_written_with_captions() -> None:
    sample = {
        "conversation": {
            "speaker_a": "A",
            "speaker_b": "B",
            "session_2_date_time": "9:05 am on 14 July, 2023",
            "session_2": [{"speaker": "B", "dia_id": "D2:1", "text": "Bye!"}],
            "session_1_date_time": "2:10 pm on 25 May, 2023",
            "session_1": [
                {"speaker": "A", "dia_id": "D1:1", "text": "Look!", "blip_caption": "a photo of a cat"}
            ],
        }
    }
    told = sessions_of(sample)
    assert [s["date"] for s in told] == ["2:10 pm on 25 May, 2023", "9:05 am on 14 July, 2023"]
    assert told[0]["turns"] == [{"speaker": "A", "text": "Look! (and shared a photo of a cat)"}]
    assert sessions_of(sample, captions=False)[0]["turns"][0]["text"] == "Look!"
