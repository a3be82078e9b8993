"""``POST /feedback``: thumbs up or down on an answer, stored with its question for later evaluation.

One JSON line per vote in ``DATA_DIR/feedback.jsonl`` (appended under a lock; nothing is sent
anywhere). ``devkb``'s evaluation can read it back as questions people asked with a verdict. A
thumbs-down is also a knowledge gap (``agent/knowledge_gaps.py``), in the store; one with a
correction ("the right answer is …") also a proposed team memory (``memory/service.py``).
"""

from __future__ import annotations

import json
import logging
import threading
from collections import deque
from datetime import UTC, datetime
from pathlib import Path

from fastapi import APIRouter, HTTPException, Request

from devkb.api.deps import GapsDep, SettingsDep
from devkb.api.schemas import ErrorResponse, FeedbackIn, FeedbackStored
from devkb.memory.service import MemoryError, MemoryService

log = logging.getLogger(__name__)

router = APIRouter(tags=["feedback"])
_lock = threading.Lock()


def feedback_file(data_dir: Path) -> Path:
    return data_dir / "feedback.jsonl"


VOTES_READ = 5000  # the newest votes a gaps report reads


def read_votes(data_dir: Path) -> list[dict[str, object]]:
    """The newest ``VOTES_READ`` feedback records (a line that is not JSON is skipped)."""
    path = feedback_file(data_dir)
    if not path.is_file():
        return []
    with _lock, path.open(encoding="utf-8") as f:
        lines = deque(f, maxlen=VOTES_READ)
    votes = []
    for line in lines:
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict):
            votes.append(record)
    return votes


@router.post(
    "/feedback",
    response_model=FeedbackStored,
    status_code=201,
    operation_id="sendFeedback",
    responses={s: {"model": ErrorResponse} for s in (401, 422)},
)
def send_feedback(body: FeedbackIn, settings: SettingsDep, gaps: GapsDep, request: Request) -> FeedbackStored:
    """Record a thumbs up or down on an answer, with the question and the cited documents. A
    thumbs-down with ``correction`` ("the right answer is …") also becomes a proposed team memory
    for reviewers (``GET /memories?status=proposed``), about the cited documents."""
    memory_id = None
    if (
        body.correction is not None and body.rating == "down"
    ):  # with a thumbs-up it is not one  # first: a correction that cannot be kept is not half-recorded
        memories: MemoryService = request.app.state.container.memories()
        try:
            memory_id = memories.propose_correction(body.correction, body.document_ids).id
        except MemoryError as e:
            raise HTTPException(e.status, str(e)) from e
    record = {
        "at": datetime.now(UTC).isoformat(timespec="seconds"),
        **body.model_dump(),
        "memory_id": memory_id,
    }
    path = feedback_file(Path(settings.data_dir))
    path.parent.mkdir(parents=True, exist_ok=True)
    with _lock, path.open("a", encoding="utf-8") as f:
        f.write(json.dumps(record, ensure_ascii=False) + "\n")
    if body.rating == "down":
        try:
            gaps.record_feedback(body.question, body.document_ids)
        except Exception:  # the vote is in feedback.jsonl already; the gap is best effort
            log.warning("could not record a knowledge gap", exc_info=True)
    return FeedbackStored(stored=True, at=str(record["at"]), memory_id=memory_id)
