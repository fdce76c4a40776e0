// What some well-known images declare themselves (their Dockerfile's EXPOSE) and serve at `/` out of the box, so
// that a simulated container of such an image answers a port-forward or proxy to a port its pod spec does not
// list, as the real image would: the Python client's own end-to-end test forwards to port 80 of a bare
// `nginx` pod and looks for its welcome page. Other ports and paths get the responder's echo.

export interface ImageDefaults {
  ports: number[];
  /** The body served at GET / (text/html). */
  index?: string;
}

const NGINX_INDEX = `<!DOCTYPE html>
<html>
<head>
<title>Welcome to nginx!</title>
</head>
<body>
<h1>Welcome to nginx!</h1>
<p>This page is served by a simulated nginx container: nothing runs here, the simulator answers for it.</p>
</body>
</html>
`;

const IMAGES: Array<{ repository: RegExp; defaults: ImageDefaults }> = [
  { repository: /(^|\/)nginx$/, defaults: { ports: [80], index: NGINX_INDEX } },
  { repository: /(^|\/)httpd$/, defaults: { ports: [80], index: '<html><body><h1>It works!</h1></body></html>\n' } },
];

/** The repository of an image reference, without registry port confusion, tag or digest. */
function repositoryOf(image: string): string {
  const noDigest = image.split('@')[0];
  const slash = noDigest.lastIndexOf('/');
  const colon = noDigest.lastIndexOf(':');
  return colon > slash ? noDigest.slice(0, colon) : noDigest;
}

export function imageDefaults(image: string | undefined): ImageDefaults | undefined {
  if (!image) return undefined;
  const repo = repositoryOf(image);
  return IMAGES.find((i) => i.repository.test(repo))?.defaults;
}
