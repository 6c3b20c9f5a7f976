export { drawTable } from "./generic.js";
