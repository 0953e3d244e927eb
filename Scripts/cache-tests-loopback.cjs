// Preloaded into the cache-tests suite's server (node --require) so that it listens on 127.0.0.1
// only: the unmodified server calls server.listen(port), which listens on every interface.
const net = require('net')
const listen = net.Server.prototype.listen
net.Server.prototype.listen = function (...args) {
  const portOnly = (typeof args[0] === 'number' || typeof args[0] === 'string') &&
    (args.length === 1 || typeof args[1] === 'function')
  if (portOnly) args.splice(1, 0, '127.0.0.1')
  return listen.apply(this, args)
}
