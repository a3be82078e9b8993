"""Scheduled syncs inside the server process (APScheduler)."""

from devkb.scheduling.scheduler import SyncScheduler, trigger_for

__all__ = ["SyncScheduler", "trigger_for"]
