// The web client's service worker: shows the server's Web Push notices and opens their table.
//
// A push carries the decrypted JSON the server sent (services/notify/notices.py): `type`, `title`,
// `body`, `url` (the table, or the lobby when several games were collapsed) and `tag`, the same for
// a message sent again, so the browser replaces a notification instead of showing it twice.
self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

self.addEventListener("push", (event) => {
  let notice = {};
  try {
    notice = event.data ? event.data.json() : {};
  } catch {
    notice = { title: event.data ? event.data.text() : "Chaiwala" };
  }
  const url = new URL(notice.url || "/play/#/", self.location.origin).href;
  const options = { body: notice.body || "", tag: notice.tag || undefined, data: { url, notice } };
  event.waitUntil(self.registration.showNotification(notice.title || "Chaiwala", options));
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const url = (event.notification.data && event.notification.data.url) || new URL("/play/#/", self.location.origin).href;
  event.waitUntil(
    (async () => {
      const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
      const open = windows.find((client) => client.url.startsWith(new URL("/play/", self.location.origin).href));
      if (open) {
        await open.focus();
        return open.navigate(url);
      }
      return self.clients.openWindow(url);
    })(),
  );
});
