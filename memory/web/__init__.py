"""The web app for people: server-rendered pages over the services and selectors."""
