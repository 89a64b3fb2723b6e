"""Test helpers: local stand-ins for remote services (registries, package repositories), image builds."""
