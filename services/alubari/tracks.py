"""Work-rate tracks, the weather track and tea harvests."""

from __future__ import annotations

from typing import Any

from services.alubari import estates
from services.alubari.content import BOARD, CONTRACTS, CROP_VALUES

State = dict[str, Any]
Events = list[dict[str, Any]]

EXCAVATION = BOARD["work_rates"]["excavation"]
LAY_TRACK = BOARD["work_rates"]["lay_track"]
CROP = BOARD["work_rates"]["crop_harvest"]
CROP_END = len(CROP_VALUES)  # the space after the last value: reaching it triggers a harvest
WEATHER_KEY: dict[str, dict[str, Any]] = {k: v for k, v in BOARD["weather_key"].items() if k != "provenance"}


def crop_value(state: State) -> float:
    """The current Crop Harvest work rate (leaves per estate space)."""
    return CROP_VALUES[state["rates"]["crop"]]


def tea_harvest(state: State, events: Events, cause: str, rate: float | None = None) -> None:
    """Every owner (or borrower) of excavated estate spaces gains spaces x rate leaves, rounded down.

    The crop marker then goes back to its starting space.
    """
    value = crop_value(state) if rate is None else rate
    gains: list[int] = []
    for seat, player in enumerate(state["players"]):
        gain = min(int(estates.harvesting_spaces(state, seat) * value), state["supply"]["tea_leaves"])
        state["supply"]["tea_leaves"] -= gain
        player["tea_leaves"] += gain
        gains.append(gain)
    state["rates"]["crop"] = CROP["start"]
    events.append({"tea_harvest": {"cause": cause, "rate": value, "leaves": gains}})


def move_excavation(state: State, delta: int, events: Events) -> None:
    """Shift the Excavation work rate; above the top it stays at the top and a harvest follows."""
    rates = state["rates"]
    target = rates["excavation"] + delta
    if delta < 0:
        target = max(EXCAVATION["min"], target)
    overflow = target > EXCAVATION["max"]
    rates["excavation"] = min(EXCAVATION["max"], target)
    if delta:
        events.append({"work_rate_changed": {"track": "EXCAVATION", "value": float(rates["excavation"])}})
    if overflow:
        tea_harvest(state, events, "EXCAVATION_OVERFLOW")


def move_lay_track(state: State, delta: int, events: Events) -> None:
    """Shift the Lay Track work rate, ignoring moves past either end."""
    rates = state["rates"]
    rates["lay_track"] = max(LAY_TRACK["min"], min(LAY_TRACK["max"], rates["lay_track"] + delta))
    if delta:
        events.append({"work_rate_changed": {"track": "LAY_TRACK", "value": float(rates["lay_track"])}})


def move_crop(state: State, delta: int, events: Events) -> None:
    """Shift the Crop Harvest marker; reaching the end harvests at the last '2' and resets it."""
    rates = state["rates"]
    target = max(0, rates["crop"] + delta)
    if target >= CROP_END:
        rates["crop"] = CROP_END - 1
        events.append({"work_rate_changed": {"track": "CROP_HARVEST", "value": crop_value(state)}})
        tea_harvest(state, events, "CROP_TRACK_END")
        return
    rates["crop"] = target
    if delta:
        events.append({"work_rate_changed": {"track": "CROP_HARVEST", "value": crop_value(state)}})


def adjust_weather(state: State, events: Events) -> None:
    """Phase 2: shift the weather discs down one space and apply the weather key for this round."""
    track = state["weather"]
    leaving = track[0]
    if leaving is not None:
        state["weather_pool"][leaving] += 1
    state["fog"] = False
    track[0], track[1], track[2] = track[1], track[2], None
    current = track[0]
    if current is not None:
        key = WEATHER_KEY[current]
        move_excavation(state, key["excavation"], events)
        move_lay_track(state, key["lay_track"], events)
        move_crop(state, key["crop_harvest"], events)
        state["fog"] = bool(key["fog"])
    top = deck_top_weather(state)
    if top is not None and state["weather_pool"][top] > 0:
        state["weather_pool"][top] -= 1
        track[2] = top
    events.append({"weather_changed": {"current": current or "NO_WEATHER", "track": [w or "NO_WEATHER" for w in track],
                                       "fog": state["fog"]}})


def deck_top_weather(state: State) -> str | None:
    """The weather icon on the back of the contract deck's top card (public), if any."""
    deck = state["deck"]
    if not deck:
        return None
    return str(CONTRACTS[deck[-1]]["weather"])
