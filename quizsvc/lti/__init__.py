"""quizsvc as an LTI 1.3 tool (pylti1p3): the registrations and launch values from the store
(`tool`), the tool's keys (`keys`), what a launch's claims mean (`launch`) and grade passback
through Assignment and Grade Services (`grades`). No Flask: `quizsvc.web.lti` serves it."""
