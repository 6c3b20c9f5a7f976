"""Web Push notifications: players' browser subscriptions, their preferences, and the sender
process that turns outbox facts into encrypted pushes (see docs/concepts/notifications.md)."""
