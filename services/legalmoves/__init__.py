"""Legal moves answered from Redis: the commit stores each seat's rendered ``GET legal-moves``
answer beside the game, and the gateway serves it without a rules-service call while it is
provably current.

A REST move is ``GET legal-moves`` then ``POST moves``; the GET was a whole gRPC call (and a
Redis load) of its own, about half the server CPU of a move (README "Speed", 2026-12-02).  Now:

* **Written by the commit** (:mod:`services.legalmoves.entries`, the delimited block of the
  commit script in :mod:`services.games.store`): for every seat with a token, the answer
  ``ListLegalMoves`` would give after the commit, rendered to the exact bytes REST prints
  (:mod:`services.legalmoves.render`), in the language of the committing call, filed in the
  hash ``game:{G}:legal`` under ``<sha256 of the seat token>:<language>``.  The hash also holds
  ``fp``, the **fingerprint** of the metadata the answers were made from
  (:mod:`services.legalmoves.fingerprint`): status, version, log head, lifecycle, players,
  token hashes, game type.
* **Read by the gateway** (:mod:`services.legalmoves.reader`): one Lua script recomputes the
  fingerprint from the game's metadata as it is now and returns the seat's answer only when both
  match.  Any writer of those fields (another process's commit, an abort, a lobby or lifecycle
  change) changes the fingerprint, so a stale answer is never served, with no cooperation from
  the writers; the snapshot itself is named by version and log head (as in
  :mod:`services.rules.positions`).  Everything else — no Redis, another language, a bearer
  that is not a seat token (operators, hosts, spectators), a game not active, an error — takes
  the rules-service call as before.
* **Only where a GET will follow.**  Commits through the gateway (``RenderedRules.SubmitMoves``),
  the conductor's and resignations store the answers; a plain gRPC ``SubmitMoves`` does not (its
  callers list moves with ``ListLegalMoves``, and rendering every seat's answer was a large share
  of that call): it drops the previous answers like any commit, so a REST GET after it takes the
  rules-service call, which prints the same bytes (``GamePlay.commit``'s ``store_legal``).
* **Hidden information.**  An answer is filed under the hash of its own seat's token and is
  served only to a bearer whose token hashes to it: nobody else can name the field.
* **Races.**  The commit script writes the answers with the metadata it commits, in the same
  atomic step, and only if the players and token hashes it was computed from are still the ones
  stored (``identity``); what the commit writes itself (status, version, head, lifecycle) it
  computed from.
"""
