"""The one way the interface uses the user store (bookmarks, read marks, saved searches).

Every store call goes through StoreAccess.call: when there is no store, or the store fails, the user
is told in the same words wherever it happened, and the caller carries on without the result."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, TypeVar

from textual.notifications import SeverityLevel

from search import StoreError, UserStore

T = TypeVar("T")

UNAVAILABLE = "Bookmarks and saved searches are unavailable."
"""Said when there is no store and no reason was given for it."""


class Notifier(Protocol):
    """Where the user is told: an App, a Screen or any widget."""

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None: ...


@dataclass(frozen=True)
class StoreAccess:
    """The user store, or None with the reason it could not be opened."""

    store: UserStore | None = None
    problem: str | None = None
    """Why `store` is None, told when the user asks for something the store keeps."""

    @classmethod
    def open(cls) -> StoreAccess:
        """The user's store, or no store and the reason (browsing and search work without one)."""
        try:
            return cls(UserStore())
        except StoreError as error:
            return cls(None, f"{error}. Browsing and search still work.")

    @property
    def available(self) -> bool:
        return self.store is not None

    def require(self, where: Notifier) -> UserStore | None:
        """The store, or None after telling the user it is unavailable."""
        if self.store is None:
            where.notify(self.problem or UNAVAILABLE, title="Bookmarks unavailable", severity="warning", markup=False)
        return self.store

    def call(self, where: Notifier, action: Callable[[UserStore], T], *, quiet: bool = False) -> tuple[bool, T | None]:
        """Run `action` on the store: (True, its result), or (False, None) after telling the user why
        not. `quiet` is for reads the user did not ask for (a preview, the command palette's list),
        which fall back to nothing without a word."""
        store = self.store if quiet else self.require(where)
        if store is None:
            return False, None
        try:
            return True, action(store)
        except StoreError as error:
            if not quiet:
                where.notify(str(error), title="Bookmarks database", severity="error", markup=False)
            return False, None
