/**
 * The `servers` entry of a service's document: where `npm start` answers on this machine
 * with the default port. Deployments put the service behind their own address; the
 * document's paths stay the same there.
 */
export function localServer(port: number, what = 'the service') {
  return {
    url: `http://127.0.0.1:${port}`,
    description: `${what} started locally with \`npm start\` (default port; set PORT or the service's port variable to move it)`,
  };
}
