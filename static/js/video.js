// Video embeds: YouTube (youtube-nocookie.com) and Vimeo players load on the first click only.
import { clickToLoad } from "./facade.js";

clickToLoad(
  ".video-embed .video-frame[data-embed]",
  /^https:\/\/(www\.youtube-nocookie\.com\/embed\/|player\.vimeo\.com\/video\/)/,
  (iframe) => {
    iframe.allow = "autoplay; encrypted-media; picture-in-picture; fullscreen";
    iframe.allowFullscreen = true;
  },
);
