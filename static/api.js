// The API page: Swagger UI over this server's OpenAPI document.
'use strict';
if (window.SwaggerUIBundle) window.SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui', deepLinking: true, tryItOutEnabled: false });
