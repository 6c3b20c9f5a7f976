// Notifications in the web client: the service worker (web/sw.js), the "Notify me when it's my
// turn" button (browser permission, then a Web Push subscription registered for the player) and
// the settings page (`#/settings`) that reads and writes the player's preferences.
import { html, render, useEffect, useState } from "../vendor/htm-preact-standalone.js";
import { call, words } from "./api.js";
import { T } from "./i18n.js";
import { ensurePlayer } from "./player.js";

const NOTICES = ["your_turn", "deadline_near", "invited", "match_found", "game_finished"];

/** Whether this browser can take push notifications at all. */
export function pushSupported() {
  return "serviceWorker" in navigator && "PushManager" in window && "Notification" in window;
}

/** Register the service worker (scope /play/); resolves to its registration, or null. */
export async function registerWorker() {
  if (!("serviceWorker" in navigator)) return null;
  try {
    return await navigator.serviceWorker.register(new URL("../sw.js", import.meta.url), { scope: "./" });
  } catch (error) {
    console.warn("service worker not registered:", error.message);
    return null;
  }
}

function keyBytes(base64url) {
  const text = atob(base64url.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (base64url.length % 4)) % 4));
  return Uint8Array.from(text, (c) => c.charCodeAt(0));
}

/** Ask permission, subscribe this browser with the server's VAPID key and register it for the player. */
export async function enableNotifications() {
  if (!pushSupported()) return "unsupported";
  const permission = await Notification.requestPermission();
  if (permission !== "granted") return "denied";
  const me = await ensurePlayer();
  const registration = (await registerWorker()) || (await navigator.serviceWorker.ready);
  const { public_key: key } = await call("GET", "/v1/push/vapid-public-key");
  let subscription = await registration.pushManager.getSubscription();
  if (!subscription) {
    subscription = await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(key) });
  }
  await call("POST", "/v1/me/push-subscriptions", { token: me.token, body: subscription.toJSON() });
  return "on";
}

/** The "Notify me when it's my turn" button and what came of pressing it. */
export function NotifyButton() {
  const [state, setState] = useState(pushSupported() && Notification.permission === "denied" ? "denied" : "");
  async function press() {
    try {
      setState(await enableNotifications());
    } catch (error) {
      setState("");
      console.warn("notifications not enabled:", error.message);
    }
  }
  if (!pushSupported()) return html`<p class="notify-state">${T("notify_unsupported")}</p>`;
  return html`<span class="notify">
    <button type="button" id="notify-me" onClick=${press}>${T("notify_me")}</button>
    ${state ? html` <span class="notify-state" id="notify-state">${T(`notify_${state}`)}</span>` : null}
  </span>`;
}

function Settings() {
  const [prefs, setPrefs] = useState(null);
  const [said, setSaid] = useState("");
  useEffect(() => {
    // A player who never set quiet hours is offered the browser's own time zone (saved with Save).
    const local = (p) => (p.quiet_hours || p.time_zone !== "UTC" ? p : { ...p, time_zone: Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC" });
    ensurePlayer().then((me) => call("GET", "/v1/me/preferences", { token: me.token })).then((p) => setPrefs(local(p)), (e) => setSaid(e.message));
  }, []);
  if (!prefs) return html`<section id="settings"><h2>${T("settings")}</h2><p class="error">${said}</p></section>`;
  const quiet = prefs.quiet_hours || { start: "", end: "" };
  const toggle = (name) => {
    const on = (prefs.notices || []).includes(name);
    setPrefs({ ...prefs, notices: on ? prefs.notices.filter((n) => n !== name) : [...(prefs.notices || []), name] });
  };
  async function save(event) {
    event.preventDefault();
    const body = { notices: prefs.notices || [], time_zone: prefs.time_zone || "UTC", language: prefs.language || words() };
    if (quiet.start && quiet.end) body.quiet_hours = quiet;
    try {
      const me = await ensurePlayer();
      setPrefs(await call("PUT", "/v1/me/preferences", { token: me.token, body }));
      setSaid(T("saved"));
    } catch (error) {
      setSaid(error.message);
    }
  }
  const setQuiet = (part, value) => setPrefs({ ...prefs, quiet_hours: { ...quiet, [part]: value } });
  return html`<form id="settings" onSubmit=${save}>
    <h2>${T("settings")}</h2>
    <p><${NotifyButton} /></p>
    <fieldset id="notices"><legend>${T("notices")}</legend>
      ${NOTICES.map((name) => html`<label><input type="checkbox" name=${name} checked=${(prefs.notices || []).includes(name)}
        onChange=${() => toggle(name)} /> ${T(`notice:${name}`)}</label>`)}
    </fieldset>
    <fieldset id="quiet"><legend>${T("quiet_hours")}</legend>
      <label>${T("quiet_from")} <input type="time" id="quiet-start" value=${quiet.start} onInput=${(e) => setQuiet("start", e.target.value)} /></label>
      <label>${T("quiet_to")} <input type="time" id="quiet-end" value=${quiet.end} onInput=${(e) => setQuiet("end", e.target.value)} /></label>
      <label>${T("time_zone")} <input id="time-zone" value=${prefs.time_zone}
        onInput=${(e) => setPrefs({ ...prefs, time_zone: e.target.value })} /></label>
    </fieldset>
    <label>${T("language")} <select id="notice-language" value=${prefs.language}
      onChange=${(e) => setPrefs({ ...prefs, language: e.target.value })}>
      <option value="en">English</option><option value="es">Español</option></select></label>
    <button type="submit" id="save-settings">${T("save")}</button>
    <p class="said" id="settings-said">${said}</p>
  </form>`;
}

/** Show the settings page in `root`; returns its disposer. */
export function showSettings(root) {
  render(html`<${Settings} />`, root);
  return () => render(null, root);
}
