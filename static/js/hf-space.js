// Hugging Face Spaces: the Space's app (https://owner-name.hf.space) loads on the first click.
import { clickToLoad } from "./facade.js";

clickToLoad(".hf-space .hf-space-frame[data-embed]", /^https:\/\/[a-z0-9-]+\.hf\.space\/?$/, (iframe) => {
  // The permissions Hugging Face's own embed snippet grants; the app prompts before using any.
  iframe.allow = "accelerometer; autoplay; camera; clipboard-write; encrypted-media; "
    + "fullscreen; geolocation; gyroscope; microphone; picture-in-picture";
  iframe.setAttribute("sandbox", "allow-forms allow-modals allow-popups "
    + "allow-popups-to-escape-sandbox allow-same-origin allow-scripts allow-downloads");
});
