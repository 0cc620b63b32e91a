// The API page: Swagger UI over this server's OpenAPI document (window.ui: the viewer, for the browser tests).
'use strict';
if (window.SwaggerUIBundle) window.ui = window.SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui', deepLinking: true, tryItOutEnabled: false });
