"""``POST /feedback``: thumbs up or down on an answer, stored with its question for later evaluation.

One JSON line per vote in ``DATA_DIR/feedback.jsonl`` (appended under a lock; nothing is sent
anywhere). ``devkb``'s evaluation can read it back as questions people asked with a verdict. A
thumbs-down is also a knowledge gap (``agent/knowledge_gaps.py``), in the store.
"""

from __future__ import annotations

import json
import logging
import threading
from datetime import UTC, datetime
from pathlib import Path

from fastapi import APIRouter

from devkb.api.deps import GapsDep, SettingsDep
from devkb.api.schemas import FeedbackIn, FeedbackStored

log = logging.getLogger(__name__)

router = APIRouter(tags=["feedback"])
_lock = threading.Lock()


def feedback_file(data_dir: Path) -> Path:
    return data_dir / "feedback.jsonl"


@router.post("/feedback", response_model=FeedbackStored, status_code=201, operation_id="sendFeedback")
def send_feedback(body: FeedbackIn, settings: SettingsDep, gaps: GapsDep) -> FeedbackStored:
    """Record a thumbs up or down on an answer, with the question and the cited documents."""
    record = {"at": datetime.now(UTC).isoformat(timespec="seconds"), **body.model_dump()}
    path = feedback_file(Path(settings.data_dir))
    path.parent.mkdir(parents=True, exist_ok=True)
    with _lock, path.open("a", encoding="utf-8") as f:
        f.write(json.dumps(record, ensure_ascii=False) + "\n")
    if body.rating == "down":
        try:
            gaps.record_feedback(body.question, body.document_ids)
        except Exception:  # the vote is in feedback.jsonl already; the gap is best effort
            log.warning("could not record a knowledge gap", exc_info=True)
    return FeedbackStored(stored=True, at=record["at"])
