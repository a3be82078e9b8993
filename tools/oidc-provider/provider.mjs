// A real OpenID Connect provider (panva/oidc-provider) for tests, listening on 127.0.0.1 only.
//
// Environment:
//   PORT           port to listen on (127.0.0.1); 0 picks a free one, named in the "ready" line
//   ISSUER         issuer URL, default http://127.0.0.1:<the port listened on>
//   CLIENT_ID      the one registered client
//   CLIENT_SECRET  its secret; empty or unset registers a public client (token_endpoint_auth_method "none")
//   CLIENT_AUTH    optional token_endpoint_auth_method for a confidential client (default client_secret_basic)
//   REDIRECT_URI   the client's redirect URI
//   USERS          JSON list of {sub, email, name, password[, email_verified]}
//   ID_TOKEN_CLAIMS  "1" puts scope claims (email, name) into the ID token too; otherwise they come from
//                    userinfo only, the library's default for the code flow (conformIdTokenClaims)
//
// The library's own development interactions (devInteractions) render the login and consent pages. Their login
// form takes any login name; the middleware below checks the name (a user's sub or e-mail) and password against
// USERS before the library sees the form, and hands the library the user's sub as the account id.
// Prints "ready <issuer>" on stdout once listening.
import { generateKeyPairSync } from 'node:crypto';
import { createServer } from 'node:http';
import * as querystring from 'node:querystring';

import Provider from 'oidc-provider';

const port = Number.parseInt(process.env.PORT ?? '', 10);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error('PORT must be set to a port number (0 for any free port)');
  process.exit(2);
}
const clientId = process.env.CLIENT_ID || 'devkb';
const clientSecret = process.env.CLIENT_SECRET || '';
const redirectUri = process.env.REDIRECT_URI;
if (!redirectUri) {
  console.error('REDIRECT_URI must be set');
  process.exit(2);
}
const users = JSON.parse(process.env.USERS || '[]');

const bySub = new Map(users.map((u) => [String(u.sub), u]));
const byLogin = new Map();
for (const u of users) {
  byLogin.set(String(u.sub), u);
  if (u.email) byLogin.set(String(u.email).toLowerCase(), u);
}

const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const signingKey = { ...privateKey.export({ format: 'jwk' }), kid: 'test-rs256', alg: 'RS256', use: 'sig' };

const client = {
  client_id: clientId,
  redirect_uris: [redirectUri],
  grant_types: ['authorization_code'],
  response_types: ['code'],
};
if (clientSecret) {
  client.client_secret = clientSecret;
  client.token_endpoint_auth_method = process.env.CLIENT_AUTH || 'client_secret_basic';
} else {
  client.token_endpoint_auth_method = 'none';
}

function makeProvider(issuer) {
  const provider = new Provider(issuer, {
    clients: [client],
    jwks: { keys: [signingKey] },
    cookies: { keys: ['devkb-test-cookie-key-1', 'devkb-test-cookie-key-0'] },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    conformIdTokenClaims: process.env.ID_TOKEN_CLAIMS !== '1',
    pkce: { required: () => true },
    features: { devInteractions: { enabled: true } },
    async findAccount(ctx, sub) {
      const user = bySub.get(String(sub));
      if (!user) return undefined;
      return {
        accountId: String(user.sub),
        async claims() {
          return {
            sub: String(user.sub),
            email: user.email,
            email_verified: user.email_verified ?? true,
            name: user.name,
          };
        },
      };
    },
  });
  provider.proxy = true;

  // Check the devInteractions login form's password, then let the library finish the login with the user's sub.
  provider.use(async (ctx, next) => {
    if (ctx.method === 'POST' && /^\/interaction\/[^/]+$/.test(ctx.path) && ctx.is('application/x-www-form-urlencoded')) {
      const chunks = [];
      let size = 0;
      for await (const chunk of ctx.req) {
        size += chunk.length;
        if (size > 56 * 1024) ctx.throw(413, 'request entity too large');
        chunks.push(chunk);
      }
      const body = querystring.parse(Buffer.concat(chunks).toString('utf8'));
      if (body.prompt === 'login') {
        const user = byLogin.get(String(body.login ?? '').toLowerCase()) ?? byLogin.get(String(body.login ?? ''));
        if (!user || String(user.password) !== String(body.password ?? '')) {
          ctx.status = 401;
          ctx.type = 'html';
          ctx.body = '<!DOCTYPE html><p>invalid login or password</p>';
          return;
        }
        body.login = String(user.sub);
      }
      ctx.req.body = body; // the library reads an already parsed body from req.body
    }
    await next();
  });
  return provider;
}

// Listen first, so that PORT=0 works: the issuer names the port actually bound.
const server = createServer();
server.listen(port, '127.0.0.1', () => {
  const issuer = process.env.ISSUER || `http://127.0.0.1:${server.address().port}`;
  server.on('request', makeProvider(issuer).callback());
  console.log(`ready ${issuer}`);
});
