"""Test helpers shared by several test modules (local stand-ins for managed services)."""
