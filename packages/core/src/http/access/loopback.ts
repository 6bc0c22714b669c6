/** Whether a socket address is this machine: 127.0.0.0/8, `::1`, or their IPv4-mapped form. */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (!address) return false;
  const v4 = address.toLowerCase().startsWith('::ffff:') ? address.slice(7) : address;
  if (/^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4)) return true;
  return address === '::1' || /^(0{1,4}:){7}0{0,3}1$/.test(address);
}
